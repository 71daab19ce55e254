// certbench's `firefox` shim: NSS's start-up, the reason buffer, trust stores of the roots and
// chains as sent. See internal.h.

#include "internal.h"

namespace certbench_firefox {

void Fail(char *reason, size_t cap, std::string_view why) {
  if (reason == nullptr || cap == 0) {
    return;
  }
  size_t n = why.size() < cap - 1 ? why.size() : cap - 1;
  std::memcpy(reason, why.data(), n);
  reason[n] = '\0';
}

// The fail-closed test hook (tests/it/browsers.rs): throws where the test asks.
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

// NSS initialised once per process, without a database (NSS_NoDB_Init), for its signature
// checks and digests; and only the NSS this shim was compiled against: the version string the
// samples record names it, so another one loaded in its place (the system's libnss3 found
// before the build's) is a failure, never a figure under the wrong name.
bool NssReady(std::string *why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string failed;
  std::call_once(once, [] {
    const char *loaded = NSS_GetVersion();
    if (loaded == nullptr || std::strcmp(loaded, NSS_VERSION) != 0) {
      failed = std::string("NSS ") + (loaded != nullptr ? loaded : "?") +
               " is loaded where this shim was built for NSS " NSS_VERSION;
      return;
    }
    ok = NSS_IsInitialized() || NSS_NoDB_Init(nullptr) == SECSuccess;
    if (!ok) {
      failed = "NSS_NoDB_Init failed";
    }
  });
  if (!ok) {
    *why = failed;
  }
  return ok;
}

// mozilla::pkix's name of a result without its "Result::" ("ERROR_EXPIRED_CERTIFICATE").
std::string Name(Result rv) {
  std::string_view name = MapResultToName(rv);
  return std::string(name.substr(name.rfind(':') + 1));  // npos + 1: the whole name
}

bool ToInput(const Der &der, Input *input) { return input->Init(der.data(), der.size()) == Success; }

std::string_view View(Input in) {
  return {reinterpret_cast<const char *>(in.UnsafeGetData()), in.GetLength()};
}

// Keeps the roots mozilla::pkix parses (BackCert, as the path builder parses every candidate).
void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason, size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
    MaybeThrow("store");
    std::string why;
    if (!NssReady(&why)) {  // when Init was not called
      Fail(reason, cap, why);
      return nullptr;
    }
    Ev();  // built once, outside the timed EV attempt (Init builds it too)
    auto store = std::make_unique<Store>();
    store->roots.reserve(n);  // never moves: the index holds views into it
    for (size_t i = 0; i < n; i++) {
      const Der &root = store->roots.emplace_back(roots[i].der, roots[i].der + roots[i].len);
      Input kept;
      ToInput(root, &kept);  // left empty when too long: then it does not parse
      BackCert cert(kept, EndEntityOrCA::MustBeCA, nullptr);
      if (cert.Init() != Success) {
        store->roots.pop_back();
      } else if (store->ders.insert(View(kept)).second) {
        store->by_subject[View(cert.GetSubject())].push_back(store->roots.size() - 1);
      }
    }
    if (used != nullptr) {
      *used = store->roots.size();
    }
    if (store->roots.empty()) {
      Fail(reason, cap, "no root parses");
      return nullptr;
    }
    return store.release();
  });
}

void StoreFree(void *store) { delete static_cast<Store *>(store); }

// Copies the DER as sent; the end entity must at least parse as a certificate (BackCert, as
// BuildCertChain parses it first).
void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
    MaybeThrow("chain");
    if (n == 0) {
      Fail(reason, cap, "no certificate");
      return nullptr;
    }
    Input leaf;
    if (leaf.Init(certs[0].der, certs[0].len) != Success) {
      Fail(reason, cap, Name(Result::ERROR_BAD_DER));
      return nullptr;
    }
    Result rv = BackCert(leaf, EndEntityOrCA::MustBeEndEntity, nullptr).Init();
    if (rv != Success) {
      Fail(reason, cap, Name(rv));
      return nullptr;
    }
    auto chain = std::make_unique<Chain>();
    chain->leaf.assign(certs[0].der, certs[0].der + certs[0].len);
    for (size_t i = 1; i < n; i++) {
      chain->intermediates.emplace_back(certs[i].der, certs[i].der + certs[i].len);
    }
    return chain.release();
  });
}

void ChainFree(void *chain) { delete static_cast<Chain *>(chain); }

}  // namespace certbench_firefox
