// certbench's `firefox` shim: the EV table, the trust domain (NSSCertDBTrustDomain as
// CertVerifier sets it up for a TLS server) and path building with mozilla::pkix (the EV
// attempt, then DV), the verified path, the rejection text, start-up. See internal.h.

#include "internal.h"

namespace certbench_firefox {

// Firefox's EV table (ev_roots.inc: kEVInfos), as ExtendedValidation.cpp holds it after
// LoadExtendedValidationInfo: each row's root SHA-256 and policy OID (DER contents, as
// SEC_StringToOID makes a CertPolicyId), and the CA/Browser Forum EV OID. Built once, before any
// timed call (Init and StoreNew build it).

constexpr EvEntry kEvInfos[] = {
#include "ev_roots.inc"
};

// A dotted OID ("2.23.140.1.1") as a CertPolicyId (the contents of its DER encoding); false if
// malformed or too long.
bool OidToPolicy(std::string_view dotted, CertPolicyId *out) {
  std::string der = OidToDer(dotted);
  if (der.empty() || der.size() > CertPolicyId::MAX_BYTES) {
    return false;
  }
  out->numBytes = static_cast<uint16_t>(der.size());
  std::memcpy(out->bytes, der.data(), der.size());
  return true;
}

struct EvTable {
  struct Row {
    Sha256 root;
    CertPolicyId policy;
  };
  std::vector<Row> rows;  // kEVInfos' order
  CertPolicyId cabforum{};

  EvTable() {
    OidToPolicy("2.23.140.1.1", &cabforum);
    for (const EvEntry &entry : kEvInfos) {
      Row row{};
      if (HexToSha256(entry.sha256_hex, &row.root) && OidToPolicy(entry.policy_oid, &row.policy)) {
        rows.push_back(row);
      }
    }
  }

  // FindMatchingEVPolicy: the CA/Browser Forum OID, else the first row's OID that matches.
  const CertPolicyId *Match(Input oid) const {
    auto equal = [&oid](const CertPolicyId &id) {
      return oid.GetLength() == id.numBytes &&
             std::memcmp(oid.UnsafeGetData(), id.bytes, id.numBytes) == 0;
    };
    if (equal(cabforum)) {
      return &cabforum;
    }
    for (const Row &row : rows) {
      if (equal(row.policy)) {
        return &row.policy;
      }
    }
    return nullptr;
  }

  // CertIsAuthoritativeForEVPolicy: the certificate's SHA-256 is a row's, and the policy is the
  // CA/Browser Forum OID or that row's.
  bool Authoritative(Input cert, const CertPolicyId &policy) const {
    Sha256 fingerprint;
    if (DigestBufNSS(cert, DigestAlgorithm::sha256, fingerprint.data(), fingerprint.size()) !=
        Success) {
      return false;
    }
    for (const Row &row : rows) {
      if (row.root == fingerprint && (policy == cabforum || policy == row.policy)) {
        return true;
      }
    }
    return false;
  }
};

const EvTable &Ev() {
  static const EvTable table;  // thread-safe initialisation
  return table;
}

// GetKnownEVPolicies: the leaf's certificatePolicies OIDs that are EV policies, in the leaf's
// order (the policy qualifiers are not checked, as there). Nothing when the extension is absent
// or malformed.
std::vector<CertPolicyId> KnownEvPolicies(Input leaf) {
  std::vector<CertPolicyId> policies;
  BackCert cert(leaf, EndEntityOrCA::MustBeEndEntity, nullptr);
  if (cert.Init() != Success || cert.GetCertificatePolicies() == nullptr) {
    return policies;
  }
  Reader extension(*cert.GetCertificatePolicies());
  Reader certificate_policies;
  if (der::ExpectTagAndGetValue(extension, der::SEQUENCE, certificate_policies) != Success ||
      !extension.AtEnd()) {
    return policies;
  }
  do {
    Reader policy_information;
    if (der::ExpectTagAndGetValue(certificate_policies, der::SEQUENCE, policy_information) !=
        Success) {
      return policies;
    }
    Input policy_oid;
    if (der::ExpectTagAndGetValue(policy_information, der::OIDTag, policy_oid) != Success) {
      return policies;
    }
    if (const CertPolicyId *ev = Ev().Match(policy_oid)) {
      policies.push_back(*ev);
    }
  } while (!certificate_policies.AtEnd());
  return policies;
}

// The trust domain of one attempt: NSSCertDBTrustDomain's choices for trustSSL, DV or EV (the
// policy given to GetCertTrust is the attempt's required policy).
class TrustDomainImpl final : public TrustDomain {
 public:
  TrustDomainImpl(const Store &store, const Chain &chain, unsigned int min_rsa_bits,
                  SignatureCache &cache)
      : store_(store), chain_(chain), min_rsa_bits_(min_rsa_bits), cache_(cache) {}

  // GetCertTrust: a candidate equal to a root (a built-in root, CERTDB_TRUSTED_CA) is a trust
  // anchor for anyPolicy, and for an EV policy only if CertIsAuthoritativeForEVPolicy; anything
  // else inherits trust (OneCRL, NSS's distrust records and the trust cache left out).
  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &policy, Input candidate,
                      TrustLevel &trust) override {
    trust = TrustLevel::InheritsTrust;
    if (store_.ders.count(View(candidate)) != 0 &&
        (policy.IsAnyPolicy() || Ev().Authoritative(candidate, policy))) {
      trust = TrustLevel::TrustAnchor;
    }
    return Success;
  }

  // FindIssuer: the roots with that subject first, then the certificates the server sent
  // whose subject is the issuer's name ("Try all root certs first and then all (presumably)
  // intermediates"), skipping a self-signed certificate that is not a trust anchor
  // (CheckCandidates' ShouldSkipSelfSignedNonTrustAnchor). Left out: third-party roots and
  // intermediates, the preloaded intermediates (cert_storage), the NSS database searched last,
  // and the name constraints imposed on some roots (CERT_GetImposedNameConstraints).
  Result FindIssuer(Input issuer_name, IssuerChecker &checker, Time) override {
    bool keep_going = true;
    auto roots = store_.by_subject.find(View(issuer_name));
    if (roots != store_.by_subject.end()) {
      // A root is a trust anchor, which ShouldSkipSelfSignedNonTrustAnchor never skips.
      for (size_t i : roots->second) {
        Input root;
        if (!ToInput(store_.roots[i], &root)) {
          continue;
        }
        Result rv = checker.Check(root, nullptr, keep_going);
        if (rv != Success || !keep_going) {
          return rv;
        }
      }
    }
    for (const Der &der : chain_.intermediates) {
      Input sent;
      if (!ToInput(der, &sent)) {
        continue;
      }
      BackCert cert(sent, EndEntityOrCA::MustBeCA, nullptr);
      if (cert.Init() != Success || !InputsAreEqual(issuer_name, cert.GetSubject()) ||
          SkipSelfSignedNonAnchor(cert, sent)) {
        continue;
      }
      Result rv = checker.Check(sent, nullptr, keep_going);
      if (rv != Success || !keep_going) {
        return rv;
      }
    }
    return Success;
  }

  // IsChainValid: Firefox checks key pins and the distrust-after dates of built-in roots here
  // (both left out), and keeps the chain as the built chain (NSSCertDBTrustDomain's
  // mBuiltChain, end entity first), which CT takes its issuer from
  // (VerifyCertificateTransparencyPolicy, after BuildCertChain): the last call before
  // BuildCertChain succeeds is the accepted path's (pkixtypes.h), so its end entity's issuer
  // is kept here (a view: Verify copies it when it accepts). certChain.GetDER(0) is the anchor.
  // The whole chain is kept too (views, anchor first as given; at most
  // NonOwningDERArray::MAX_LENGTH, 8, certificates), for the path VerifiedPath returns.
  Result IsChainValid(const DERArray &cert_chain, Time, const CertPolicyId &) override {
    size_t n = cert_chain.GetLength();
    built_issuer_ = n >= 2 ? Bytes(*cert_chain.GetDER(n - 2)) : Bytes();
    built_len_ = 0;
    if (n <= built_.size()) {  // else no path is kept: VerifiedPath then has none (-1)
      for (size_t i = 0; i < n; i++) {
        const Input *der = cert_chain.GetDER(i);
        built_[i] = der != nullptr ? Bytes(*der) : Bytes();
      }
      built_len_ = n;
    }
    return Success;
  }

  // CheckRevocation: CRLite, OCSP (fetched, cached, stapled) left out; OneCRL would be in
  // GetCertTrust.
  Result CheckRevocation(EndEntityOrCA, const CertID &, Time, Duration, const Input *,
                         const Input *, const Input *) override {
    return Success;
  }

  // SHA-256/384/512 only: SHA-1 is refused for every certificate (as NSSCertDBTrustDomain).
  Result CheckSignatureDigestAlgorithm(DigestAlgorithm alg, EndEntityOrCA, Time) override {
    return alg == DigestAlgorithm::sha1 ? Result::ERROR_CERT_SIGNATURE_ALGORITHM_DISABLED
                                        : Success;
  }

  Result CheckRSAPublicKeyModulusSizeInBits(EndEntityOrCA, unsigned int bits) override {
    return bits < min_rsa_bits_ ? Result::ERROR_INADEQUATE_KEY_SIZE : Success;
  }

  Result VerifyRSAPKCS1SignedData(Input data, DigestAlgorithm alg, Input signature,
                                  Input spki) override {
    return Cached('p', data, alg, signature, spki, VerifyRSAPKCS1SignedDataNSS);
  }

  Result VerifyRSAPSSSignedData(Input data, DigestAlgorithm alg, Input signature,
                                Input spki) override {
    return Cached('s', data, alg, signature, spki, VerifyRSAPSSSignedDataNSS);
  }

  // P-256, P-384 and P-521, as NSSCertDBTrustDomain.
  Result CheckECDSACurveIsAcceptable(EndEntityOrCA, NamedCurve curve) override {
    switch (curve) {
      case NamedCurve::secp256r1:
      case NamedCurve::secp384r1:
      case NamedCurve::secp521r1:
        return Success;
    }
    return Result::ERROR_UNSUPPORTED_ELLIPTIC_CURVE;
  }

  Result VerifyECDSASignedData(Input data, DigestAlgorithm alg, Input signature,
                               Input spki) override {
    return Cached('e', data, alg, signature, spki, VerifyECDSASignedDataNSS);
  }

  // No limit on a validity period (NSSCertDBTrustDomain::CheckValidityIsAcceptable).
  Result CheckValidityIsAcceptable(Time, Time, EndEntityOrCA, KeyPurposeId) override {
    return Success;
  }

  // NetscapeStepUpPolicy::NeverMatch (current Gecko's mozilla::pkix has dropped the hook).
  Result NetscapeStepUpMatchesServerAuth(Time, bool &matches) override {
    matches = false;
    return Success;
  }

  // The end entity's embedded SCT list, noted by mozilla::pkix on the path it accepts, for the
  // CT check (NSSCertDBTrustDomain keeps it as mSCTListFromCertificate). SCTs in a stapled OCSP
  // response (SCTListFromOCSPResponse) are never noted here: certbench staples none.
  void NoteAuxiliaryExtension(AuxiliaryExtension extension, Input data) override {
    if (extension == AuxiliaryExtension::EmbeddedSCTList) {
      embedded_scts_ = Bytes(data);
    }
  }

  // NSSCertDBTrustDomain::ResetAccumulatedState, before each BuildCertChain.
  void ResetAccumulatedState() {
    built_issuer_ = Bytes();
    embedded_scts_ = Bytes();
    built_len_ = 0;
  }

  // After a successful BuildCertChain: what the CT check needs, copied into the chain, and
  // the built chain, end entity first (see Chain::path).
  void KeepAccepted(Chain &chain) const {
    chain.issuer.assign(built_issuer_.data, built_issuer_.data + built_issuer_.len);
    chain.embedded_scts.assign(embedded_scts_.data, embedded_scts_.data + embedded_scts_.len);
    chain.path.clear();
    for (size_t i = built_len_; i > 0; i--) {
      if (built_[i - 1].data == nullptr) {
        chain.path.clear();  // never: mozilla::pkix hands over no empty certificate
        break;
      }
      chain.path.push_back(Owned(chain, built_[i - 1]));
    }
    chain.accepted = true;  // last: a throwing copy leaves it unset
  }

  Result DigestBuf(Input item, DigestAlgorithm alg, uint8_t *buf, size_t len) override {
    return DigestBufNSS(item, alg, buf, len);
  }

 private:
  using Check = Result (*)(Input, DigestAlgorithm, Input, Input, void *);

  Result Cached(char kind, Input data, DigestAlgorithm alg, Input signature, Input spki,
                Check check) {
    std::string key(1, kind);
    key.push_back(static_cast<char>(alg));
    for (Input part : {spki, signature, data}) {
      uint16_t len = part.GetLength();
      key.append(reinterpret_cast<const char *>(&len), sizeof len);
      key.append(reinterpret_cast<const char *>(part.UnsafeGetData()), part.GetLength());
    }
    auto hit = cache_.find(key);
    if (hit != cache_.end()) {
      return hit->second;
    }
    Result rv = check(data, alg, signature, spki, nullptr);
    cache_.emplace(std::move(key), rv);
    return rv;
  }

  // NSSCertDBTrustDomain::ShouldSkipSelfSignedNonTrustAnchor (bug 1056341).
  bool SkipSelfSignedNonAnchor(const BackCert &cert, Input der) {
    TrustLevel trust;
    if (!InputsAreEqual(cert.GetIssuer(), cert.GetSubject()) ||
        GetCertTrust(EndEntityOrCA::MustBeCA, CertPolicyId::anyPolicy, der, trust) != Success ||
        trust != TrustLevel::InheritsTrust) {
      return false;
    }
    return VerifySignedData(*this, cert.GetSignedData(), cert.GetSubjectPublicKeyInfo()) ==
           Success;
  }

  const Store &store_;
  const Chain &chain_;
  unsigned int min_rsa_bits_;
  SignatureCache &cache_;
  // Views (an Input cannot be assigned) into the roots or the chain, valid during the call.
  struct Bytes {
    Bytes() = default;
    explicit Bytes(Input in) : data(in.UnsafeGetData()), len(in.GetLength()) {}
    const uint8_t *data = nullptr;
    size_t len = 0;
  };
  Bytes built_issuer_;
  Bytes embedded_scts_;
  std::array<Bytes, 8> built_;  // the last IsChainValid's chain, anchor first
  size_t built_len_ = 0;

  // `der` as a view the chain owns until ChainFree: the end entity or a certificate it was
  // sent, or else (a root of the store) a copy in `kept`, made once per chain.
  static certbench_der Owned(Chain &chain, Bytes der) {
    auto same = [&](const Der &d) { return d.data() == der.data && d.size() == der.len; };
    if (same(chain.leaf)) {
      return {chain.leaf.data(), chain.leaf.size()};
    }
    for (const Der &d : chain.intermediates) {
      if (same(d)) {
        return {d.data(), d.size()};
      }
    }
    for (const Der &d : chain.kept) {
      if (d.size() == der.len && std::memcmp(d.data(), der.data, der.len) == 0) {
        return {d.data(), d.size()};
      }
    }
    const Der &copy = chain.kept.emplace_back(der.data, der.data + der.len);
    return {copy.data(), copy.size()};
  }
};

// CertVerifier.cpp's BuildCertChainForOneKeyUsage: digitalSignature ((EC)DHE), then
// keyEncipherment (RSA), then keyAgreement ((EC)DH), each tried only when the one before
// failed for an inadequate key usage; any failure of the last is an inadequate key usage.
Result BuildForServer(TrustDomainImpl &domain, Input leaf, Time time,
                      const CertPolicyId &policy) {
  const KeyUsage usages[] = {KeyUsage::digitalSignature, KeyUsage::keyEncipherment,
                             KeyUsage::keyAgreement};
  for (KeyUsage ku : usages) {
    domain.ResetAccumulatedState();
    Result rv = BuildCertChain(domain, leaf, time, EndEntityOrCA::MustBeEndEntity, ku,
                               KeyPurposeId::id_kp_serverAuth, policy, nullptr);
    if (rv != Result::ERROR_INADEQUATE_KEY_USAGE) {
      return rv == Success || ku != KeyUsage::keyAgreement ? rv
                                                           : Result::ERROR_INADEQUATE_KEY_USAGE;
    }
  }
  return Result::ERROR_INADEQUATE_KEY_USAGE;
}

// The EV attempt of CertVerifier::VerifyCert (see the header comment).
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto &chain = *static_cast<Chain *>(chain_ptr);
  chain.accepted = false;
  chain.path.clear();  // keeps its capacity; `kept` keeps what VerifiedPath handed out
  chain.ct_last = false;
  chain.ct_verified_kept = false;
  try {
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
    chain.signatures.clear();
    Input leaf;
    if (!ToInput(chain.leaf, &leaf)) {
      return CERTBENCH_EV_FALLBACK;
    }
    std::vector<CertPolicyId> ev_policies = KnownEvPolicies(leaf);
    if (ev_policies.empty()) {
      return CERTBENCH_EV_NOT_CANDIDATE;
    }
    if (time < 0) {
      return CERTBENCH_EV_FALLBACK;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    for (const CertPolicyId &policy : ev_policies) {
      TrustDomainImpl domain(store, chain, kMinRsaBits, chain.signatures);
      if (BuildForServer(domain, leaf, at, policy) == Success) {
        domain.KeepAccepted(chain);
        return CERTBENCH_EV_GRANTED;
      }
    }
  } catch (...) {
    // Fail closed: an error is no EV chain.
  }
  return CERTBENCH_EV_FALLBACK;
}

// The DV attempt. Nothing is rendered here: a rejection's result is kept for Explain.
int Verify(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto &chain = *static_cast<Chain *>(chain_ptr);
  chain.accepted = false;
  chain.path.clear();  // keeps its capacity; `kept` keeps what VerifiedPath handed out
  chain.ct_last = false;
  chain.ct_verified_kept = false;
  try {
    chain.error.clear();
    chain.rejected = Success;
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
    Input leaf;
    if (time < 0) {
      chain.error = "a validation time before 1970";
      return 0;
    }
    if (!ToInput(chain.leaf, &leaf)) {
      chain.rejected = Result::ERROR_BAD_DER;
      return 0;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    // VerifyCert's keySizeOptions: the strong minimum first, then the weak one, whose success
    // is ERROR_INADEQUATE_KEY_SIZE ("Enforce the minimum (non-weak) RSA key size for
    // certificates issued from built-in roots"): every root here plays a built-in one.
    Result rv = Result::FATAL_ERROR_LIBRARY_FAILURE;
    for (unsigned int bits : {kMinRsaBits, kMinRsaBitsWeak}) {
      TrustDomainImpl domain(store, chain, bits, chain.signatures);
      rv = BuildForServer(domain, leaf, at, CertPolicyId::anyPolicy);
      if (rv == Success) {
        if (bits == kMinRsaBits) {
          domain.KeepAccepted(chain);
          return 1;
        }
        rv = Result::ERROR_INADEQUATE_KEY_SIZE;
      }
    }
    chain.rejected = rv;
    return 0;
  } catch (const std::exception &e) {
    chain.error = e.what();
  } catch (...) {
    chain.error = "an unknown C++ exception";
  }
  if (chain.error.empty()) {
    chain.error = "an internal error";
  }
  return 0;
}

// The last rejection, rendered now (untimed): VerifyCt's when it was the last call, else
// Verify's.
void Explain(void *chain_ptr, char *reason, size_t cap) {
  Guarded(reason, cap, 0, [&]() -> int {
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    if (chain.ct_last) {
      const certbench_ct_counts &n = chain.ct_counts;
      std::string counts = " (" + std::to_string(n.scts) + " SCTs: " +
                           std::to_string(n.valid) + " valid, " +
                           std::to_string(n.unknown_log) + " from unknown logs, " +
                           std::to_string(n.invalid) + " invalid)";
      if (!chain.ct_failed) {
        Fail(reason, cap, "no rejection recorded");
      } else if (!chain.ct_error.empty()) {
        Fail(reason, cap, "CT: " + chain.ct_error);
      } else if (chain.ct_rejected == Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY) {
        // Firefox's name for it (MapResultToPRErrorCode), with the policy's verdict.
        Fail(reason, cap,
             std::string("MOZILLA_PKIX_ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY: ") +
                 ComplianceName(chain.ct_compliance) + counts);
      } else {
        Fail(reason, cap, "CT: " + Name(chain.ct_rejected) + counts);
      }
      return 0;
    }
    if (!chain.error.empty()) {
      Fail(reason, cap, chain.error);
    } else {
      Fail(reason, cap,
           chain.rejected == Success ? std::string("no rejection recorded") : Name(chain.rejected));
    }
    return 0;
  });
}

// The path the last Verify or VerifyEv accepted (see the header): the built chain Gecko's
// revocation checks read (NSSCertDBTrustDomain's mBuiltChain, end entity first, the anchor
// last), which certbench's CRLite check reads. Views the chain owns (Chain::path); nothing
// here allocates or throws.
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap) {
  const auto &chain = *static_cast<const Chain *>(chain_ptr);
  if (!chain.accepted || chain.path.empty() ||
      chain.path.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return -1;
  }
  size_t n = chain.path.size();
  if (n <= cap && out != nullptr) {
    std::copy(chain.path.begin(), chain.path.end(), out);
  }
  return static_cast<int>(n);
}

// NSS's start-up (NSS_NoDB_Init, once per process) and the EV table, before anything is timed
// apart.
int Init(char *reason, size_t cap) {
  return Guarded(reason, cap, 0, [&]() -> int {
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return 0;
    }
    Ev();
    return 1;
  });
}

}  // namespace certbench_firefox
