// certbench's `chrome` shim: parsing certificates as Chromium does, the trust store of the roots
// (local anchors) and a chain as sent (the target and an issuer source). See internal.h.

#include "internal.h"

namespace certbench_chrome {

void Fail(char *reason, size_t cap, std::string_view why) {
  if (reason == nullptr || cap == 0) {
    return;
  }
  size_t n = why.size() < cap - 1 ? why.size() : cap - 1;
  std::memcpy(reason, why.data(), n);
  reason[n] = '\0';
}

// The fail-closed test hook (tests/it/browsers.rs): throws where the test asks, so that the test
// sees the exception caught and turned into a failure.
void MaybeThrow(const char *where) {
  // Read once per process (the tests set it per process): no getenv inside the timed calls.
  static const std::string at = [] {
    const char *value = std::getenv("CERTBENCH_NATIVE_THROW");
    return std::string(value != nullptr ? value : "");
  }();
  if (!at.empty() && at == where) {
    throw std::runtime_error(std::string("CERTBENCH_NATIVE_THROW=") + where);
  }
}

// As Chromium's x509_util::DefaultParseCertificateOptions.
bssl::ParseCertificateOptions ParseOptions() {
  bssl::ParseCertificateOptions options;
  options.allow_invalid_serial_numbers = true;
  return options;
}

std::shared_ptr<const bssl::ParsedCertificate> Parse(const certbench_der &der,
                                                     std::string *why) {
  bssl::UniquePtr<CRYPTO_BUFFER> buffer(CRYPTO_BUFFER_new(der.der, der.len, nullptr));
  if (!buffer) {
    *why = "out of memory";
    return nullptr;
  }
  bssl::CertErrors errors;
  auto cert = bssl::ParsedCertificate::Create(std::move(buffer), ParseOptions(), &errors);
  if (!cert) {
    *why = errors.ToDebugString();
    if (why->empty()) {
      *why = "the certificate does not parse";
    }
  }
  return cert;
}

void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason,
               size_t cap) {
  try {
    MaybeThrow("store");
    Ev();  // built once, outside the timed EV attempt (Init builds it too)
    auto store = std::make_unique<Store>();
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
      std::string why;
      auto root = Parse(roots[i], &why);
      if (root && !store->anchors.Contains(root.get())) {
        store->anchors.AddCertificate(std::move(root),
                                      bssl::CertificateTrust::ForTrustAnchor()
                                          .WithEnforceAnchorConstraints()
                                          .WithEnforceAnchorExpiry());
        kept++;
      }
    }
    if (used != nullptr) {
      *used = kept;
    }
    if (kept == 0) {
      Fail(reason, cap, "no root parses");
      return nullptr;
    }
    return store.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void StoreFree(void *store) { delete static_cast<Store *>(store); }

void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap) {
  try {
    MaybeThrow("chain");
    if (n == 0) {
      Fail(reason, cap, "no certificate");
      return nullptr;
    }
    auto chain = std::make_unique<Chain>();
    std::string why;
    chain->target = Parse(certs[0], &why);
    if (!chain->target) {
      Fail(reason, cap, "end-entity certificate: " + why);
      return nullptr;
    }
    for (size_t i = 1; i < n; i++) {
      if (auto cert = Parse(certs[i], &why)) {
        chain->intermediates.AddCert(std::move(cert));
      }
    }
    return chain.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void ChainFree(void *chain) { delete static_cast<Chain *>(chain); }

}  // namespace certbench_chrome
