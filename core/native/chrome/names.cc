// certbench's `chrome` shim: the host name check, Chromium's X509Certificate::VerifyHostname over
// the end-entity certificate's subjectAltName.

#include "internal.h"

namespace certbench_chrome {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

// Splits "www.f.com" into "www" and ".f.com" (the domain keeps its dot; empty if none), as
// Chromium's SplitOnChar.
void SplitOnDot(std::string_view name, std::string_view *host, std::string_view *domain) {
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    *host = name;
    *domain = std::string_view();
  } else {
    *host = name.substr(0, dot);
    *domain = name.substr(dot);
  }
}

// As Chromium's IsCanonicalizedHostCompliant (net/base/url_util.cc): labels of letters,
// digits, '-' and '_', 1-63 characters, the name at most 253 (254 with a final dot), and the
// last label starting with a letter or digit.
bool HostCompliant(std::string_view host) {
  if (host.empty() || host.size() > 254 || (host.back() != '.' && host.size() == 254)) {
    return false;
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool in_label = false, last_started_alnum = false;
  size_t label = 0;
  for (char c : host) {
    ++label;
    if (!in_label) {
      last_started_alnum = alnum(c);
      if (!last_started_alnum && c != '-' && c != '_') {
        return false;
      }
      in_label = true;
    } else if (c == '.') {
      if (label - 1 > 63 || label - 1 == 0) {
        return false;
      }
      in_label = false;
      label = 0;
    } else if (!alnum(c) && c != '-' && c != '_') {
      return false;
    }
  }
  return label <= 63 && last_started_alnum;
}

// Chromium's X509Certificate::VerifyHostname over the end-entity certificate's
// subjectAltName (no common-name fallback). One departure: Chromium refuses a wildcard whose
// domain is a registry (public suffix list, e.g. *.co.uk); without the list, this refuses only
// a wildcard whose domain is a single label (e.g. *.com).
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap) {
  try {
    MaybeThrow("name");
    auto *chain = static_cast<Chain *>(chain_ptr);
    const bssl::GeneralNames *sans = chain->target->subject_alt_names();
    if (sans == nullptr || (sans->dns_names.empty() && sans->ip_addresses.empty())) {
      Fail(reason, cap, "no dNSName or iPAddress subjectAltName");
      return 0;
    }
    if (kind == CERTBENCH_NAME_IP) {
      std::string_view ip(reinterpret_cast<const char *>(name), len);
      for (const bssl::der::Input &presented : sans->ip_addresses) {
        if (presented.size() == len && std::memcmp(presented.data(), name, len) == 0) {
          return 1;
        }
      }
      Fail(reason, cap, "the IP address is not among the certificate's iPAddress names");
      return 0;
    }
    if (kind != CERTBENCH_NAME_DNS) {
      Fail(reason, cap, "unknown name kind");
      return 0;
    }
    std::string reference =
        Lower(std::string_view(reinterpret_cast<const char *>(name), len));
    if (reference == "." || !HostCompliant(reference)) {
      Fail(reason, cap, "the host is not a compliant DNS name");
      return 0;
    }
    if (reference.back() == '.') {
      reference.pop_back();
    }
    std::string_view reference_host, reference_domain;
    SplitOnDot(reference, &reference_host, &reference_domain);
    bool allow_wildcards =
        reference_domain.size() > 1 &&
        reference_domain.find('.', 1) != std::string_view::npos &&
        reference.find_first_not_of("0123456789.") != std::string::npos;
    for (std::string_view san : sans->dns_names) {
      if (san.empty() || san.find('\0') != std::string_view::npos) {
        continue;
      }
      std::string presented = Lower(san);
      if (presented.back() == '.') {
        presented.pop_back();
      }
      if (presented.size() > reference.size()) {
        continue;
      }
      std::string_view presented_host, presented_domain;
      SplitOnDot(presented, &presented_host, &presented_domain);
      if (presented_domain != reference_domain) {
        continue;
      }
      if (presented_host != "*") {
        if (presented_host == reference_host) {
          return 1;
        }
        continue;
      }
      if (allow_wildcards) {
        return 1;
      }
    }
    Fail(reason, cap, "the host is not among the certificate's dNSName names");
    return 0;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

}  // namespace certbench_chrome
