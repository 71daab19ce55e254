// certbench's `chrome` shim: path building and verification as CertVerifyProcBuiltin makes them
// (the EV attempt, then DV), the EV table, the rejection text, the verified path, start-up.
// verifier.cc's header comment says what is modelled and what is left out. See internal.h.

#include "internal.h"

namespace certbench_chrome {

// Chrome's EV table (ev_roots.inc: the Chrome Root Store's ev_policy_oids), as
// EVRootCAMetadata holds it: root SHA-256 -> EV policy OIDs (DER contents), and the set of every

static_assert(SHA256_DIGEST_LENGTH == std::tuple_size<Sha256>::value, "a SHA-256 is 32 bytes");

constexpr EvEntry kEvRoots[] = {
#include "ev_roots.inc"
};

std::string Bytes(bssl::der::Input in) {
  return std::string(reinterpret_cast<const char *>(in.data()), in.size());
}

struct EvTable {
  std::map<Sha256, std::set<std::string>> policies_by_root;
  std::set<std::string> policies;

  EvTable() {
    for (const EvEntry &entry : kEvRoots) {
      Sha256 root;
      std::string oid = OidToDer(entry.policy_oid);
      if (HexToSha256(entry.sha256_hex, &root) && !oid.empty()) {
        policies_by_root[root].insert(oid);
        policies.insert(std::move(oid));
      }
    }
  }

  // EVRootCAMetadata::IsEVPolicyOID.
  bool IsEvPolicy(bssl::der::Input oid) const {
    return policies.count(Bytes(oid)) != 0;
  }

  // EVRootCAMetadata::HasEVPolicyOID.
  bool HasEvPolicy(const Sha256 &root, bssl::der::Input oid) const {
    auto it = policies_by_root.find(root);
    return it != policies_by_root.end() && it->second.count(Bytes(oid)) != 0;
  }
};

const EvTable &Ev() {
  static const EvTable table;  // thread-safe initialisation
  return table;
}

// GetEVPolicyOids: the leaf's policy OIDs that the table lists for some root.
std::set<bssl::der::Input> EvPolicyOids(const bssl::ParsedCertificate &cert) {
  std::set<bssl::der::Input> oids;
  if (cert.has_policy_oids()) {
    for (const bssl::der::Input &oid : cert.policy_oids()) {
      if (Ev().IsEvPolicy(oid)) {
        oids.insert(oid);
      }
    }
  }
  return oids;
}

using bssl::CertErrorId;
DEFINE_CERT_ERROR_ID(kPathLacksEVPolicy, "Path does not have an EV policy");

// PathBuilderDelegateImpl for VerificationType::kEV, reduced to what certbench keeps of it: the
// SimplePathBuilderDelegate limits, then ConformsToEVPolicy on each valid path (the CT, CRLSet,
// Chrome Root Store constraints and revocation steps around it are left out, as for DV).
class EvDelegate final : public bssl::SimplePathBuilderDelegate {
 public:
  EvDelegate(size_t min_rsa_modulus_length_bits, DigestPolicy digest_policy)
      : bssl::SimplePathBuilderDelegate(min_rsa_modulus_length_bits, digest_policy) {}

  void CheckPathAfterVerification(const bssl::CertPathBuilder &path_builder,
                                  bssl::CertPathBuilderResultPath *path) override {
    bssl::SimplePathBuilderDelegate::CheckPathAfterVerification(path_builder, path);
    if (!path->IsValid()) {
      return;
    }
    if (!ConformsToEvPolicy(*path)) {
      path->errors.GetErrorsForCert(0)->AddError(kPathLacksEVPolicy);
    }
  }

 private:
  // The path's anchor must be an EV root for one of the policies the path is valid for (the
  // requested EV OIDs that survived policy processing).
  static bool ConformsToEvPolicy(const bssl::CertPathBuilderResultPath &path) {
    const bssl::ParsedCertificate *root = path.GetTrustedCert();
    if (root == nullptr) {
      return false;
    }
    Sha256 fingerprint;
    bssl::der::Input der = root->der_cert();
    SHA256(der.data(), der.size(), fingerprint.data());
    for (const bssl::der::Input &oid : path.user_constrained_policy_set) {
      if (Ev().HasEvPolicy(fingerprint, oid)) {
        return true;
      }
    }
    return false;
  }
};

// The best path's error in one line: its status code's name, then the first error the path
// builder wrote ("CERTIFICATE_EXPIRED: Time is after notAfter").
std::string Describe(const bssl::VerifyError &error) {
  using Code = bssl::VerifyError::StatusCode;
  const char *name = "VERIFICATION_FAILURE";
  switch (error.Code()) {
    case Code::PATH_VERIFIED: name = "PATH_VERIFIED"; break;
    case Code::CERTIFICATE_INVALID_SIGNATURE: name = "CERTIFICATE_INVALID_SIGNATURE"; break;
    case Code::CERTIFICATE_UNSUPPORTED_KEY: name = "CERTIFICATE_UNSUPPORTED_KEY"; break;
    case Code::CERTIFICATE_UNSUPPORTED_SIGNATURE_ALGORITHM:
      name = "CERTIFICATE_UNSUPPORTED_SIGNATURE_ALGORITHM";
      break;
    case Code::CERTIFICATE_REVOKED: name = "CERTIFICATE_REVOKED"; break;
    case Code::CERTIFICATE_NO_REVOCATION_MECHANISM:
      name = "CERTIFICATE_NO_REVOCATION_MECHANISM";
      break;
    case Code::CERTIFICATE_UNABLE_TO_CHECK_REVOCATION:
      name = "CERTIFICATE_UNABLE_TO_CHECK_REVOCATION";
      break;
    case Code::CERTIFICATE_EXPIRED: name = "CERTIFICATE_EXPIRED"; break;
    case Code::CERTIFICATE_NOT_YET_VALID: name = "CERTIFICATE_NOT_YET_VALID"; break;
    case Code::CERTIFICATE_NO_MATCHING_EKU: name = "CERTIFICATE_NO_MATCHING_EKU"; break;
    case Code::CERTIFICATE_INVALID: name = "CERTIFICATE_INVALID"; break;
    case Code::PATH_NOT_FOUND: name = "PATH_NOT_FOUND"; break;
    case Code::PATH_ITERATION_COUNT_EXCEEDED: name = "PATH_ITERATION_COUNT_EXCEEDED"; break;
    case Code::PATH_DEADLINE_EXCEEDED: name = "PATH_DEADLINE_EXCEEDED"; break;
    case Code::PATH_DEPTH_LIMIT_REACHED: name = "PATH_DEPTH_LIMIT_REACHED"; break;
    case Code::PATH_MULTIPLE_ERRORS: name = "PATH_MULTIPLE_ERRORS"; break;
    case Code::VERIFICATION_FAILURE: name = "VERIFICATION_FAILURE"; break;
  }
  std::string out = name;
  const std::string &text = error.DiagnosticString();
  size_t at = text.find("ERROR: ");
  if (at != std::string::npos) {
    size_t end = text.find('\n', at);
    out += ": " + text.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
  }
  return out;
}

// The DER time of a validation time, or false (then the attempt is a rejection).
bool EncodeTime(int64_t time, bssl::der::GeneralizedTime *at) {
  return bssl::der::EncodePosixTimeAsGeneralizedTime(time, at);
}

// TryBuildPath: one path-building attempt, EV (the leaf's EV OIDs as the initial policy set, and
// EvDelegate) or DV (anyPolicy, SimplePathBuilderDelegate), the strong digest policy, server auth.
bssl::CertPathBuilder::Result TryBuildPath(Store *store, Chain *chain,
                                           const bssl::der::GeneralizedTime &at,
                                           const std::set<bssl::der::Input> &policies,
                                           bssl::CertPathBuilderDelegate *delegate) {
  bssl::CertPathBuilder builder(chain->target, &store->anchors, delegate, at,
                                bssl::KeyPurpose::SERVER_AUTH, bssl::InitialExplicitPolicy::kFalse,
                                policies, bssl::InitialPolicyMappingInhibit::kFalse,
                                bssl::InitialAnyPolicyInhibit::kFalse);
  builder.AddCertIssuerSource(&chain->intermediates);
  builder.SetIterationLimit(kPathBuilderIterationLimit);
  return builder.Run();
}

// A new Verify/VerifyEv: no accepted path yet, and the last VerifyCt's outcome is stale.
void ForgetAcceptedPath(Chain *chain) {
  chain->accepted = false;
  chain->issuer.reset();  // the certificate stays owned by the chain's issuer source or store
  chain->path.clear();    // keeps its capacity; `pinned` keeps what VerifiedPath handed out
  chain->ct_outcome = CtOutcome::kNone;
}

// An accepted path: its certs[1] kept for VerifyCt, and the whole path for VerifiedPath
// (shared_ptr copies).
void KeepAcceptedPath(Chain *chain, const bssl::CertPathBuilder::Result &result) {
  const bssl::CertPathBuilderResultPath *path = result.GetBestValidPath();
  if (path == nullptr) {
    return;
  }
  if (path->certs.size() > 1) {
    chain->issuer = path->certs[1];
  }
  chain->path.assign(path->certs.begin(), path->certs.end());
  chain->accepted = true;  // last: a throwing copy leaves it unset
}

// The EV attempt of CertVerifyProcBuiltin::VerifyInternal (see the header comment).
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    ForgetAcceptedPath(chain);
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    // IsEVCandidate / GetEVPolicyOids.
    std::set<bssl::der::Input> ev_policies = EvPolicyOids(*chain->target);
    if (ev_policies.empty()) {
      return CERTBENCH_EV_NOT_CANDIDATE;
    }
    bssl::der::GeneralizedTime at;
    if (!EncodeTime(time, &at)) {
      return CERTBENCH_EV_FALLBACK;
    }
    EvDelegate delegate(kMinRsaModulusLengthBits,
                        bssl::SimplePathBuilderDelegate::DigestPolicy::kStrong);
    bssl::CertPathBuilder::Result result = TryBuildPath(store, chain, at, ev_policies, &delegate);
    if (!result.HasValidPath()) {
      return CERTBENCH_EV_FALLBACK;
    }
    KeepAcceptedPath(chain, result);
    return CERTBENCH_EV_GRANTED;
  } catch (...) {
    // Fail closed: an error is no EV path.
  }
  return CERTBENCH_EV_FALLBACK;
}

// The DV attempt. Nothing is rendered here: a rejection's result is kept for Explain.
int Verify(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto *chain = static_cast<Chain *>(chain_ptr);
  try {
    ForgetAcceptedPath(chain);
    chain->error.clear();  // keeps its buffer: nothing freed in the timed call
    if (chain->has_rejection) {  // a rejection Explain was not asked about
      chain->rejected = bssl::CertPathBuilder::Result();
      chain->has_rejection = false;
    }
    MaybeThrow("verify");
    // The trust store is only read during path building (TrustStoreInMemory's lookups are
    // const in effect), so one store serves several threads.
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    bssl::der::GeneralizedTime at;
    if (!EncodeTime(time, &at)) {
      chain->error = "the validation time cannot be encoded";
      return 0;
    }
    // TryBuildPath for a DV attempt: the strong digest policy (the SHA-1 retry, made after an
    // attempt failed on a weak signature algorithm whatever the anchor, left out), any
    // policy, server auth.
    bssl::SimplePathBuilderDelegate delegate(
        kMinRsaModulusLengthBits, bssl::SimplePathBuilderDelegate::DigestPolicy::kStrong);
    const std::set<bssl::der::Input> any_policy = {bssl::der::Input(bssl::kAnyPolicyOid)};
    bssl::CertPathBuilder::Result result = TryBuildPath(store, chain, at, any_policy, &delegate);
    if (result.HasValidPath()) {
      KeepAcceptedPath(chain, result);
      return 1;
    }
    chain->rejected = std::move(result);
    chain->has_rejection = true;
    return 0;
  } catch (const std::exception &e) {
    chain->error = e.what();
  } catch (...) {
    chain->error = "an unknown C++ exception";
  }
  if (chain->error.empty()) {
    chain->error = "an internal error";
  }
  return 0;
}

// The last rejection by Verify, or by VerifyCt when it was the last call, rendered now
// (untimed).
void Explain(void *chain_ptr, char *reason, size_t cap) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    if (chain->ct_outcome != CtOutcome::kNone) {
      Fail(reason, cap, DescribeCt(*chain));
      return;
    }
    if (chain->error.empty() && chain->has_rejection) {
      // Rendered once, and the path builder's result freed here, outside the timed calls.
      chain->error = Describe(chain->rejected.GetBestPathVerifyError());
      chain->rejected = bssl::CertPathBuilder::Result();
      chain->has_rejection = false;
    }
    Fail(reason, cap, chain->error.empty() ? "no rejection recorded" : chain->error);
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
}

// The path the last Verify or VerifyEv accepted (see the header): CertVerifyProcBuiltin's
// revocation check reads the verified chain (the best valid path's certs, target first, the
// trust anchor last), and so does certbench's CRLSet check. Every certificate handed out is
// pinned in the chain first (see Chain::pinned).
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    if (!chain->accepted || chain->path.empty() ||
        chain->path.size() > static_cast<size_t>(INT_MAX)) {
      return -1;
    }
    size_t n = chain->path.size();
    if (n > cap || out == nullptr) {
      return static_cast<int>(n);
    }
    // Pinned before anything is written: a throwing push_back leaves `out` untouched.
    for (const auto &cert : chain->path) {
      if (std::find(chain->pinned.begin(), chain->pinned.end(), cert) == chain->pinned.end()) {
        chain->pinned.push_back(cert);
      }
    }
    for (size_t i = 0; i < n; i++) {
      bssl::der::Input der = chain->path[i]->der_cert();
      out[i].der = der.data();
      out[i].len = der.size();
    }
    return static_cast<int>(n);
  } catch (...) {
    // Only pinning allocates: out of memory is no path (nothing written).
  }
  return -1;
}

// Nothing to start for BoringSSL; the EV table is built here, before anything is timed.
int Init(char *reason, size_t cap) {
  try {
    Ev();
    return 1;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

}  // namespace certbench_chrome
