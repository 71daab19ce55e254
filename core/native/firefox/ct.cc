// certbench's `firefox` shim, Certificate Transparency: verifying SCTs (MultiLogCTVerifier),
// Gecko's CT policy (CTPolicyEnforcer), VerifyCt, and the valid SCTs for the CRLite check.

#include "internal.h"

namespace certbench_firefox {

const char *ComplianceName(int compliance) {
  switch (static_cast<CtCompliance>(compliance)) {
    case CtCompliance::Compliant:
      return "CTPolicyCompliance::Compliant";
    case CtCompliance::NotEnoughScts:
      return "CTPolicyCompliance::NotEnoughScts";
    case CtCompliance::NotDiverseScts:
      return "CTPolicyCompliance::NotDiverseScts";
  }
  return "CTPolicyCompliance::Unknown";
}

// One VerifyCt's work: MultiLogCTVerifier::Verify's, with CTVerifyResult's counters reduced to
// certbench's counts.
class CtVerification {
 public:
  CtVerification(const CtLogs &logs, uint64_t time) : logs_(logs), time_(time) {}

  certbench_ct_counts counts{};
  std::vector<VerifiedSct> verified;

  // MultiLogCTVerifier::VerifySCTs over DecodeSCTs: a list that does not decode, or an item
  // that does not (DecodeSCTList, ReadSCTListItem: an empty item too), stops the list with one
  // decoding error; an SCT that does not decode is one error and the next is read. A fatal
  // error (not a verdict on one SCT) stops everything.
  Result VerifyList(Input list, const LogEntry &entry, SctOrigin origin) {
    Reader in(list);
    Input items;
    if (ReadVariableBytes(in, 2, items) != Success) {
      DecodingError();
      return Success;
    }
    Reader reader(items);
    while (!reader.AtEnd()) {
      Input encoded;
      if (ReadVariableBytes(reader, 2, encoded) != Success || encoded.GetLength() == 0) {
        DecodingError();
        return Success;
      }
      Sct sct;
      if (DecodeSct(encoded, sct) != Success) {
        DecodingError();
        continue;
      }
      Result rv = VerifySingle(sct, entry, origin);
      if (rv != Success) {
        return rv;
      }
    }
    return Success;
  }

 private:
  void DecodingError() {
    counts.scts++;
    counts.invalid++;
  }

  // MultiLogCTVerifier::VerifySingleSCT: the log by id (a linear search, as there), the
  // signature's parameters against the log's (SHA-256 with its algorithm), the signature, then
  // the timestamp (an SCT from the future: InvalidTimestamp). Gecko's distrust-after check of
  // the SCT's timestamp (a root's CKA_NSS_SERVER_DISTRUST_AFTER) is left out with those dates.
  Result VerifySingle(const Sct &sct, const LogEntry &entry, SctOrigin origin) {
    counts.scts++;
    const CtLog *log = nullptr;
    for (const CtLog &candidate : logs_.logs) {
      if (std::memcmp(candidate.key_id.data(), sct.log_id.UnsafeGetData(), 32) == 0) {
        log = &candidate;
        break;
      }
    }
    if (log == nullptr) {
      counts.unknown_log++;  // UnknownLog
      return Success;
    }
    if (sct.hash != static_cast<uint64_t>(CtHash::SHA256) ||
        sct.signature_algorithm != static_cast<uint64_t>(log->algorithm)) {
      counts.invalid++;  // InvalidSignature: the parameters do not match the log's
      return Success;
    }
    Result rv = LogVerify(*log, entry, sct);
    if (rv == Result::ERROR_BAD_SIGNATURE) {
      counts.invalid++;  // InvalidSignature
      return Success;
    }
    if (rv != Success) {
      return rv;
    }
    // The SCT's milliseconds rounded down to seconds, as TimeFromEpochInSeconds(ts / 1000).
    if (sct.timestamp / 1000 > time_) {
      counts.invalid++;  // InvalidTimestamp
      return Success;
    }
    counts.valid++;
    verified.push_back(VerifiedSct{
        log, origin, sct.timestamp,
        log->retired && log->retired_at_ms <= time_ * 1000});
    return Success;
  }

  // CTLogVerifier::Verify: the entry encoded (for each SCT, as there), the signed data, then
  // VerifySignature: VerifySignedDataWithCache with the log's algorithm and SHA-256; a
  // non-fatal failure is ERROR_BAD_SIGNATURE.
  Result LogVerify(const CtLog &log, const LogEntry &entry, const Sct &sct) {
    Result rv = EncodeLogEntry(entry, entry_);
    if (rv == Success) {
      rv = EncodeV1SctSignedData(sct.timestamp, entry_, sct.extensions, data_);
    }
    if (rv != Success) {
      return rv;
    }
    Input data, spki;
    if (data.Init(data_.data(), data_.size()) != Success ||
        spki.Init(log.spki.data(), log.spki.size()) != Success) {
      return Result::FATAL_ERROR_INVALID_ARGS;
    }
    der::PublicKeyAlgorithm algorithm = log.algorithm == CtSignature::RSA
                                            ? der::PublicKeyAlgorithm::RSA_PKCS1
                                            : der::PublicKeyAlgorithm::ECDSA;
    rv = VerifySignedDataWithCache(algorithm, data, sct.signature, spki);
    if (rv != Success && !IsFatalError(rv)) {
      return Result::ERROR_BAD_SIGNATURE;
    }
    return rv;
  }

  // CertVerifier.cpp's VerifySignedDataWithCache, with the SCT cache: a hit is a success
  // without a check; a check that succeeds is kept. Without a cache, the check alone.
  Result VerifySignedDataWithCache(der::PublicKeyAlgorithm algorithm, Input data,
                                   Input signature, Input spki) {
    Sha512 key;
    bool hashed = false;
    if (logs_.cache) {
      hashed = HashSignatureParams(data, signature, spki, algorithm, DigestAlgorithm::sha256,
                                   &key);
      if (hashed && logs_.cache->Get(key)) {
        return Success;
      }
    }
    counts.checked++;
    Result rv = algorithm == der::PublicKeyAlgorithm::RSA_PKCS1
                    ? VerifyRSAPKCS1SignedDataNSS(data, DigestAlgorithm::sha256, signature,
                                                  spki, nullptr)
                    : VerifyECDSASignedDataNSS(data, DigestAlgorithm::sha256, signature, spki,
                                               nullptr);
    if (hashed && rv == Success) {
      logs_.cache->Insert(key);
    }
    return rv;
  }

  const CtLogs &logs_;
  uint64_t time_;  // seconds since the epoch
  Der entry_;      // scratch: the encoded entry
  Der data_;       // scratch: the signed data
};

// CTPolicyEnforcer.cpp, as of the Gecko read (see the header comment).

// GetEffectiveCertIssuanceTime: the earliest timestamp of an SCT from an admissible log.
uint64_t EffectiveIssuanceTime(const std::vector<VerifiedSct> &scts) {
  uint64_t earliest = UINT64_MAX;
  for (const VerifiedSct &sct : scts) {
    if (!sct.retired) {
      earliest = std::min(earliest, sct.timestamp);
    }
  }
  return earliest;
}

// LogWasQualifiedForSct: an admissible log's SCT, or a retired log's when both the effective
// issuance time and the SCT are before the log's retirement.
bool LogWasQualifiedForSct(const VerifiedSct &sct, uint64_t issuance_time) {
  if (!sct.retired) {
    return true;
  }
  return issuance_time < sct.log->retired_at_ms && sct.timestamp < sct.log->retired_at_ms;
}

// EmbeddedSCTsCompliant: among the embedded SCTs from once-qualified logs, at least one from an
// admissible log, and at least N of them (N = 2 for a lifetime of at most 180 days, else 3:
// GetRequiredEmbeddedSctsCount), else NotEnoughScts; then N distinct logs and 2 distinct
// operators, else NotDiverseScts.
CtCompliance EmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts, uint64_t issuance_time,
                                   Duration lifetime) {
  size_t admissible = 0;
  size_t qualified = 0;
  std::set<const CtLog *> logs;
  std::set<uint16_t> operators;
  for (const VerifiedSct &sct : scts) {
    if (sct.origin != SctOrigin::Embedded || !LogWasQualifiedForSct(sct, issuance_time)) {
      continue;
    }
    if (!sct.retired) {
      admissible++;
    }
    qualified++;
    logs.insert(sct.log);
    operators.insert(sct.log->operator_id);
  }
  size_t required = Duration(180 * Time::ONE_DAY_IN_SECONDS) < lifetime ? 3 : 2;
  if (admissible < 1 || qualified < required) {
    return CtCompliance::NotEnoughScts;
  }
  if (logs.size() < required || operators.size() < 2) {
    return CtCompliance::NotDiverseScts;
  }
  return CtCompliance::Compliant;
}

// NonEmbeddedSCTsCompliant: SCTs from TLS (or a stapled OCSP response) from admissible logs: at
// least 2, else NotEnoughScts; from 2 distinct logs of 2 distinct operators, else
// NotDiverseScts.
CtCompliance NonEmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts) {
  size_t admissible = 0;
  std::set<const CtLog *> logs;
  std::set<uint16_t> operators;
  for (const VerifiedSct &sct : scts) {
    if (sct.origin == SctOrigin::Embedded || sct.retired) {
      continue;
    }
    admissible++;
    logs.insert(sct.log);
    operators.insert(sct.log->operator_id);
  }
  if (admissible < 2) {
    return CtCompliance::NotEnoughScts;
  }
  if (logs.size() < 2 || operators.size() < 2) {
    return CtCompliance::NotDiverseScts;
  }
  return CtCompliance::Compliant;
}

// CheckCTPolicyCompliance: compliant by the non-embedded SCTs, else the embedded case's verdict.
CtCompliance CheckCtPolicyCompliance(const std::vector<VerifiedSct> &scts, Duration lifetime) {
  if (NonEmbeddedSctsCompliant(scts) == CtCompliance::Compliant) {
    return CtCompliance::Compliant;
  }
  return EmbeddedSctsCompliant(scts, EffectiveIssuanceTime(scts), lifetime);
}

// CertVerifier::VerifyCertificateTransparencyPolicy(Inner) after the accepted path (see the
// header comment): nothing rendered here; the verdict is kept for Explain.
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out) {
  auto &chain = *static_cast<Chain *>(chain_ptr);
  chain.ct_last = true;
  chain.ct_failed = true;  // until the policy is met
  chain.ct_rejected = Success;
  chain.ct_compliance = 0;
  chain.ct_error.clear();
  chain.ct_counts = certbench_ct_counts{};
  chain.ct_verified.clear();
  chain.ct_verified_kept = true;
  int ok = 0;
  try {
    MaybeThrow("ct");
    if (logs_ptr == nullptr) {
      chain.ct_error = "no CT log set";
    } else if (!chain.accepted) {
      chain.ct_error = "no accepted path: the CT check follows an accepted verify or verify_ev";
    } else if (time < 0) {
      chain.ct_error = "a validation time before 1970";
    } else if (chain.issuer.empty()) {
      // A built chain of one certificate (the end entity is the anchor): no issuer, no SCT
      // verified; Gecko returns an empty result, NotEnoughScts and the CT error.
      chain.ct_rejected = Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY;
      chain.ct_compliance = static_cast<int>(CtCompliance::NotEnoughScts);
    } else {
      const auto &logs = *static_cast<const CtLogs *>(logs_ptr);
      CtVerification verification(logs, static_cast<uint64_t>(time));
      Result rv = [&]() -> Result {
        Input leaf, issuer;
        if (!ToInput(chain.leaf, &leaf) || !ToInput(chain.issuer, &issuer)) {
          return Result::FATAL_ERROR_INVALID_ARGS;
        }
        BackCert issuer_cert(issuer, EndEntityOrCA::MustBeCA, nullptr);
        Result rv = issuer_cert.Init();
        if (rv != Success) {
          return rv;
        }
        Input issuer_spki = issuer_cert.GetSubjectPublicKeyInfo();
        // MultiLogCTVerifier::Verify: the embedded SCTs over the precertificate entry (when
        // there are an issuer key and a list), then those from TLS over the X.509 entry.
        Input embedded;
        if (!chain.embedded_scts.empty() && issuer_spki.GetLength() > 0 &&
            ToInput(chain.embedded_scts, &embedded)) {
          LogEntry precert;
          precert.precert = true;
          rv = PrecertTbs(leaf, precert.tbs);
          if (rv == Success) {
            rv = DigestBufNSS(issuer_spki, DigestAlgorithm::sha256,
                              precert.issuer_key_hash.data(), precert.issuer_key_hash.size());
          }
          if (rv == Success) {
            rv = verification.VerifyList(embedded, precert, SctOrigin::Embedded);
          }
          if (rv != Success) {
            return rv;
          }
        }
        // Gecko ignores a TLS list too long for an Input (CertVerifier::VerifyCert: a failed
        // Init leaves it empty); a TLS extension cannot carry one.
        Input from_tls;
        if (tls_scts != nullptr && tls_len > 0 && from_tls.Init(tls_scts, tls_len) == Success) {
          LogEntry x509;
          if (x509.leaf.Init(leaf) != Success) {
            return Result::FATAL_ERROR_INVALID_ARGS;
          }
          rv = verification.VerifyList(from_tls, x509, SctOrigin::TLSExtension);
          if (rv != Success) {
            return rv;
          }
        }
        BackCert end_entity(leaf, EndEntityOrCA::MustBeEndEntity, nullptr);
        rv = end_entity.Init();
        if (rv != Success) {
          return rv;
        }
        Time not_before(Time::uninitialized);
        Time not_after(Time::uninitialized);
        rv = ParseValidity(end_entity.GetValidity(), &not_before, &not_after);
        if (rv != Success) {
          return rv;
        }
        CtCompliance compliance =
            CheckCtPolicyCompliance(verification.verified, Duration(not_before, not_after));
        chain.ct_compliance = static_cast<int>(compliance);
        return compliance == CtCompliance::Compliant
                   ? Success
                   : Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY;
      }();
      chain.ct_counts = verification.counts;
      chain.ct_rejected = rv;
      for (const VerifiedSct &sct : verification.verified) {
        certbench_verified_sct out{};
        std::memcpy(out.log_id, sct.log->key_id.data(), sizeof out.log_id);
        out.timestamp = sct.timestamp;
        chain.ct_verified.push_back(out);
      }
      if (rv == Success) {
        chain.ct_failed = false;
        ok = 1;
      }
    }
  } catch (const std::exception &e) {
    chain.ct_error = e.what();
    ok = 0;
  } catch (...) {
    chain.ct_error = "an unknown C++ exception";
    ok = 0;
  }
  if (out != nullptr) {
    *out = chain.ct_counts;
  }
  return ok;
}

// The SCTs the last VerifyCt found valid, as CheckRevocationByCRLite reads them from
// mCTVerifyResult (see the header).
int VerifiedScts(void *chain_ptr, certbench_verified_sct *out, size_t cap) {
  const auto &chain = *static_cast<const Chain *>(chain_ptr);
  if (!chain.ct_verified_kept) {
    return -1;
  }
  size_t n = chain.ct_verified.size();
  if (n <= cap && out != nullptr) {
    std::copy(chain.ct_verified.begin(), chain.ct_verified.end(), out);
  }
  return static_cast<int>(n);
}

}  // namespace certbench_firefox
