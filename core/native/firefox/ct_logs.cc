// certbench's `firefox` shim, Certificate Transparency: the log set (CTLogVerifier::Init over
// the log list) and the hash of an SCT signature's parameters (the signature cache's key).

#include "internal.h"

namespace certbench_firefox {

// ---------------------------------------------------------------------------------------------
// Certificate Transparency, as Gecko checks it for a TLS server certificate (see the header
// comment for the files read): the logs (CTLogVerifier::Init over the log list), the SCTs
// (MultiLogCTVerifier::Verify, CTObjectsExtractor, CTSerialization, CTLogVerifier::Verify) and
// the policy (CTPolicyEnforcer's CheckCTPolicyCompliance), run by VerifyCt as
// CertVerifier::VerifyCertificateTransparencyPolicy runs them after a chain is built.

// CertVerifier.cpp's HashSignatureParams: SHA-512 over data, signature and the key, each
// preceded by its length as an Input::size_type (native byte order), then the public key
// algorithm and the digest algorithm (their enums' bytes). With NSS's digest context, as
// Gecko's Digest class. False when NSS fails (then nothing is looked up or kept, as there).
bool HashSignatureParams(Input data, Input signature, Input spki, der::PublicKeyAlgorithm alg,
                         DigestAlgorithm digest, Sha512 *out) {
  PK11Context *context = PK11_CreateDigestContext(SEC_OID_SHA512);
  if (context == nullptr) {
    return false;
  }
  bool ok = PK11_DigestBegin(context) == SECSuccess;
  auto update = [&](const void *bytes, size_t len) {
    if (ok && len > 0) {
      ok = PK11_DigestOp(context, static_cast<const unsigned char *>(bytes),
                         static_cast<unsigned int>(len)) == SECSuccess;
    }
  };
  for (Input part : {data, signature, spki}) {
    Input::size_type len = part.GetLength();
    update(&len, sizeof len);
    update(part.UnsafeGetData(), len);
  }
  update(&alg, sizeof alg);
  update(&digest, sizeof digest);
  unsigned int len = 0;
  ok = ok && PK11_DigestFinal(context, out->data(), &len, out->size()) == SECSuccess &&
       len == out->size();
  PK11_DestroyContext(context, PR_TRUE);
  return ok;
}

// CTLogVerifier.cpp's SignatureParamsTrustDomain: CheckSubjectPublicKeyInfo over a log's key
// learns its algorithm; only ECDSA on P-256 and RSA of at least 2048 bits (RFC 6962 §2.1.4)
// pass. Every other hook fails.
class SignatureParamsDomain final : public TrustDomain {
 public:
  CtSignature algorithm = CtSignature::Anonymous;

  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &, Input, TrustLevel &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result FindIssuer(Input, IssuerChecker &, Time) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result IsChainValid(const DERArray &, Time, const CertPolicyId &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckRevocation(EndEntityOrCA, const CertID &, Time, Duration, const Input *,
                         const Input *, const Input *) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckSignatureDigestAlgorithm(DigestAlgorithm, EndEntityOrCA, Time) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckRSAPublicKeyModulusSizeInBits(EndEntityOrCA, unsigned int bits) override {
    if (bits < 2048) {
      return Result::ERROR_INADEQUATE_KEY_SIZE;
    }
    algorithm = CtSignature::RSA;
    return Success;
  }
  Result VerifyRSAPKCS1SignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result VerifyRSAPSSSignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckECDSACurveIsAcceptable(EndEntityOrCA, NamedCurve curve) override {
    if (curve != NamedCurve::secp256r1) {
      return Result::ERROR_UNSUPPORTED_ELLIPTIC_CURVE;
    }
    algorithm = CtSignature::ECDSA;
    return Success;
  }
  Result VerifyECDSASignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckValidityIsAcceptable(Time, Time, EndEntityOrCA, KeyPurposeId) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result NetscapeStepUpMatchesServerAuth(Time, bool &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  void NoteAuxiliaryExtension(AuxiliaryExtension, Input) override {}
  Result DigestBuf(Input, DigestAlgorithm, uint8_t *, size_t) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
};

// The log list loaded once, before anything is timed, as CertVerifier::LoadKnownCTLogs loads
// kCTLogList: each key parsed once (CTLogVerifier::Init: its algorithm, then SHA-256 of it as
// the key id). A log whose key does not pass, whose given id is not that SHA-256, or whose
// state is neither admissible nor retired is skipped (LoadKnownCTLogs skips a log whose Init
// fails); its SCTs are then from an unknown log. Operators are told apart by name.
void *CtLogsNew(const certbench_ct_log *logs, size_t n, int cache_signatures, char *reason,
                size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
    MaybeThrow("ct-logs");
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return nullptr;
    }
    if (n > 0 && logs == nullptr) {
      Fail(reason, cap, "no log array");
      return nullptr;
    }
    auto set = std::make_unique<CtLogs>();
    std::map<std::string, uint16_t> operators;
    for (size_t i = 0; i < n; i++) {
      const certbench_ct_log &given = logs[i];
      if (given.log_id == nullptr || given.key == nullptr || given.operator_name == nullptr) {
        continue;
      }
      bool retired = given.state == CERTBENCH_CT_LOG_RETIRED;
      if ((!retired && given.state != CERTBENCH_CT_LOG_ADMISSIBLE) ||
          (retired && (given.retired_at < 0 ||
                       given.retired_at > INT64_MAX / 1000))) {
        continue;
      }
      Input spki;
      if (spki.Init(given.key, given.key_len) != Success) {
        continue;
      }
      SignatureParamsDomain params;
      if (CheckSubjectPublicKeyInfo(spki, params, EndEntityOrCA::MustBeEndEntity) != Success ||
          params.algorithm == CtSignature::Anonymous) {
        continue;
      }
      CtLog log;
      if (DigestBufNSS(spki, DigestAlgorithm::sha256, log.key_id.data(), log.key_id.size()) !=
              Success ||
          std::memcmp(log.key_id.data(), given.log_id, log.key_id.size()) != 0) {
        continue;
      }
      log.spki.assign(given.key, given.key + given.key_len);
      log.algorithm = params.algorithm;
      log.operator_id =
          operators.emplace(given.operator_name, static_cast<uint16_t>(operators.size()))
              .first->second;
      log.retired = retired;
      log.retired_at_ms = retired ? static_cast<uint64_t>(given.retired_at) * 1000 : 0;
      log.description = given.description != nullptr ? given.description : "";
      set->logs.push_back(std::move(log));
    }
    if (cache_signatures != 0) {
      set->cache = std::make_unique<SctSignatureCache>(kSctSignatureCacheSize);
    }
    return set.release();
  });
}

void CtLogsFree(void *logs) { delete static_cast<CtLogs *>(logs); }

}  // namespace certbench_firefox
