// certbench's `firefox` shim: the host name check, as Gecko's CheckCertHostname.

#include "internal.h"

namespace certbench_firefox {

// CertVerifier.cpp's CheckCertHostnameHelper: CheckCertHostname, malformed name information
// reported as a domain mismatch. Its policy, SkipInvalidSANsForNonBuiltInRootsPolicy, is strict
// under a built-in root, as here: StrictNameMatchingPolicy (no common-name fallback) in this
// mozilla::pkix. An IP address is checked as Firefox passes the host, as text.
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap) {
  return Guarded(reason, cap, 0, [&]() -> int {
    MaybeThrow("name");
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    std::string host;
    if (kind == CERTBENCH_NAME_DNS) {
      host.assign(reinterpret_cast<const char *>(name), len);
    } else if (kind == CERTBENCH_NAME_IP && (len == 4 || len == 16)) {
      char text[INET6_ADDRSTRLEN] = {0};
      if (inet_ntop(len == 4 ? AF_INET : AF_INET6, name, text, sizeof text) == nullptr) {
        Fail(reason, cap, "the IP address cannot be written as text");
        return 0;
      }
      host = text;
    } else {
      Fail(reason, cap, "unknown name kind");
      return 0;
    }
    Input leaf, hostname;
    if (!ToInput(chain.leaf, &leaf) ||
        hostname.Init(reinterpret_cast<const uint8_t *>(host.data()), host.size()) != Success) {
      Fail(reason, cap, Name(Result::FATAL_ERROR_INVALID_ARGS));
      return 0;
    }
    StrictNameMatchingPolicy policy;
    Result rv = CheckCertHostname(leaf, hostname, policy);
    if (rv == Success) {
      return 1;
    }
    Fail(reason, cap, Name(rv == Result::ERROR_BAD_DER ? Result::ERROR_BAD_CERT_DOMAIN : rv));
    return 0;
  });
}

}  // namespace certbench_firefox
