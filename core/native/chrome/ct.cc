// certbench's `chrome` shim, Certificate Transparency: the log set (CTLogVerifier), the CT check
// of the accepted path (MultiLogCTVerifier::Verify, ChromeCTPolicyEnforcer,
// CheckCTRequirements) and its rejection text. SCT decoding and verification is sct.cc's.

#include "internal.h"

namespace certbench_chrome {

// ---------------------------------------------------------------------------------------------
// Certificate Transparency: Chromium's CTLogVerifier (the log set), MultiLogCTVerifier (the SCTs
// of a verified path), ChromeCTPolicyEnforcer (the policy) and TransportSecurityState's
// CheckCTRequirements (the net error). See the header comment for what is left out.


// Seconds to milliseconds (an SCT's unit), saturated.
int64_t ToMillis(int64_t seconds) {
  if (seconds > INT64_MAX / 1000) {
    return INT64_MAX;
  }
  if (seconds < INT64_MIN / 1000) {
    return INT64_MIN;
  }
  return seconds * 1000;
}

// CTLogVerifier::Create/Init for each log: the SPKI parsed once (EVP_parse_public_key, nothing
// after it), RSA (at least 2048 bits) or EC only, each with SHA-256. A log whose key does not
// parse or is of another kind, or whose id is not the SHA-256 of its key, is skipped, as Chromium
// skips a log whose CTLogVerifier::Create fails; its SCTs are then from an unknown log.
//
// `cache_signatures` is ignored: Chrome keeps no cache of SCT signature results (its
// MultiLogCTVerifier verifies every SCT of every path); it caches whole verification results
// above the verifier (CachingCertVerifier, which certbench's CachingVerifier models).
void *CtLogsNew(const certbench_ct_log *in, size_t n, int cache_signatures, char *reason,
                size_t cap) {
  (void)cache_signatures;
  try {
    MaybeThrow("ct-logs");
    if (n > 0 && in == nullptr) {
      Fail(reason, cap, "no logs given");
      return nullptr;
    }
    auto set = std::make_unique<CtLogs>();
    for (size_t i = 0; i < n; i++) {
      const certbench_ct_log &log = in[i];
      if (log.state != CERTBENCH_CT_LOG_ADMISSIBLE && log.state != CERTBENCH_CT_LOG_RETIRED) {
        Fail(reason, cap, "log " + std::to_string(i) + ": unknown state " + std::to_string(log.state));
        return nullptr;
      }
      if (log.key == nullptr || log.log_id == nullptr) {
        continue;
      }
      CBS cbs;
      CBS_init(&cbs, log.key, log.key_len);
      bssl::UniquePtr<EVP_PKEY> key(EVP_parse_public_key(&cbs));
      if (!key || CBS_len(&cbs) != 0) {
        ERR_clear_error();
        continue;
      }
      CtLog parsed;
      SHA256(log.key, log.key_len, parsed.id.data());
      if (std::memcmp(parsed.id.data(), log.log_id, parsed.id.size()) != 0) {
        continue;
      }
      switch (EVP_PKEY_id(key.get())) {
        case EVP_PKEY_RSA:
          parsed.signature_algorithm = kSignatureRsa;
          break;
        case EVP_PKEY_EC:
          parsed.signature_algorithm = kSignatureEcdsa;
          break;
        default:
          continue;
      }
      if (parsed.signature_algorithm == kSignatureRsa && EVP_PKEY_size(key.get()) < 256) {
        continue;
      }
      parsed.key = std::move(key);
      parsed.description = log.description != nullptr ? log.description : "";
      std::string op = log.operator_name != nullptr ? log.operator_name : "";
      auto known = std::find(set->operators.begin(), set->operators.end(), op);
      parsed.operator_index = static_cast<size_t>(known - set->operators.begin());
      if (known == set->operators.end()) {
        set->operators.push_back(std::move(op));
      }
      parsed.retired = log.state == CERTBENCH_CT_LOG_RETIRED;
      parsed.retired_at_ms = parsed.retired ? ToMillis(log.retired_at) : 0;
      set->logs.push_back(std::move(parsed));
    }
    // One log per id (the first given), sorted for the lookups.
    std::stable_sort(set->logs.begin(), set->logs.end(),
                     [](const CtLog &a, const CtLog &b) { return a.id < b.id; });
    set->logs.erase(std::unique(set->logs.begin(), set->logs.end(),
                                [](const CtLog &a, const CtLog &b) { return a.id == b.id; }),
                    set->logs.end());
    return set.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void CtLogsFree(void *logs) { delete static_cast<CtLogs *>(logs); }

enum class Compliance { kComplies, kNotEnoughScts, kNotDiverseScts };

// ChromeCTPolicyEnforcer::CheckCTPolicyCompliance (the "on-or-after 15 April 2022" policy) over
// the SCT_STATUS_OK SCTs, at `now_ms`. A log is disqualified when it is retired and `now_ms` is
// at or after its retirement. `embedded_logs` is scratch space.
Compliance CheckCtPolicy(const bssl::ParsedCertificate &leaf, const std::vector<VerifiedSct> &scts,
                         const CtLogs &logs, int64_t now_ms, std::vector<size_t> *embedded_logs) {
  int64_t not_before = 0, not_after = 0;
  if (!bssl::der::GeneralizedTimeToPosixTime(leaf.tbs().validity_not_before, &not_before) ||
      !bssl::der::GeneralizedTimeToPosixTime(leaf.tbs().validity_not_after, &not_after)) {
    return Compliance::kNotEnoughScts;  // validity outside what base::Time holds
  }
  auto disqualified = [&](const CtLog &log, int64_t *at) {
    if (!log.retired) {
      return false;
    }
    *at = log.retired_at_ms;
    return now_ms >= log.retired_at_ms;
  };
  // The issuance date: the earliest SCT from a log not disqualified now.
  int64_t issuance = INT64_MAX;
  for (const VerifiedSct &sct : scts) {
    int64_t unused;
    if (!disqualified(logs.logs[sct.log], &unused)) {
      issuance = std::min(issuance, sct.timestamp_ms);
    }
  }
  bool valid_embedded = false, valid_nonembedded = false, diverse_operators = false;
  bool seen_operator = false;
  size_t first_operator = 0;
  embedded_logs->clear();
  for (const VerifiedSct &sct : scts) {
    const CtLog &log = logs.logs[sct.log];
    int64_t disqualified_at = 0;
    bool is_disqualified = disqualified(log, &disqualified_at);
    if (is_disqualified && !sct.embedded) {
      continue;  // a TLS SCT counts only from a log qualified now
    }
    if (!sct.embedded) {
      valid_nonembedded = true;
    } else {
      valid_embedded |= !is_disqualified;
      // A disqualified log's embedded SCT counts towards the quorum only if both the
      // certificate (the issuance date) and the SCT predate the disqualification.
      if (!is_disqualified ||
          (issuance < disqualified_at && sct.timestamp_ms < disqualified_at)) {
        embedded_logs->push_back(sct.log);
      }
    }
    // Operator diversity over every SCT counted so far, embedded or not (the log's current
    // operator: the list's operator history is not in the ABI).
    if (!diverse_operators) {
      if (!seen_operator) {
        seen_operator = true;
        first_operator = log.operator_index;
      } else {
        diverse_operators = first_operator != log.operator_index;
      }
    }
  }
  // Option 1: an SCT from TLS from a log qualified now, and SCTs of two operators.
  if (valid_nonembedded && diverse_operators) {
    return Compliance::kComplies;
  }
  // Option 2: an embedded SCT from a log qualified now ...
  if (!valid_embedded) {
    return valid_nonembedded ? Compliance::kNotDiverseScts : Compliance::kNotEnoughScts;
  }
  // ... SCTs of two operators ...
  if (!diverse_operators) {
    return Compliance::kNotDiverseScts;
  }
  // ... and embedded SCTs from distinct logs: 2 for a lifetime (notAfter - notBefore) of at
  // most 180 days, else 3.
  size_t required = not_after - not_before > int64_t{180} * 86400 ? 3 : 2;
  std::sort(embedded_logs->begin(), embedded_logs->end());
  size_t distinct = static_cast<size_t>(
      std::unique(embedded_logs->begin(), embedded_logs->end()) - embedded_logs->begin());
  if (distinct >= required) {
    return Compliance::kComplies;
  }
  return valid_nonembedded ? Compliance::kNotDiverseScts : Compliance::kNotEnoughScts;
}

// The CT check of the path the last Verify/VerifyEv accepted: as CheckPathAfterVerification,
// MultiLogCTVerifier::Verify over the target with the path's certs[1] as its only intermediate
// (the embedded SCTs against the precertificate entry, only when there is that issuer; the TLS
// SCTs against the X.509 entry), then CheckCompliance, then CheckCTRequirements: CT is required,
// every root of the store being taken for a known (publicly trusted) root, as certbench trusts
// the corpus's public roots and the mirror's stand-ins for them; a result other than
// CT_POLICY_COMPLIES_VIA_SCTS is CT_REQUIREMENTS_NOT_MET, the net error
// ERR_CERTIFICATE_TRANSPARENCY_REQUIRED. The log list is taken as timely (no
// CT_POLICY_BUILD_NOT_TIMELY): certbench models a browser whose list is under 70 days old.
// Nothing is rendered: the outcome and counts are kept for Explain.
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out) {
  if (out != nullptr) {
    *out = certbench_ct_counts{};
  }
  auto *chain = static_cast<Chain *>(chain_ptr);
  if (chain == nullptr) {
    return 0;
  }
  try {
    chain->ct_counts = certbench_ct_counts{};
    chain->ct_future = 0;
    chain->ct_outcome = CtOutcome::kNone;
    chain->verified.clear();
    MaybeThrow("ct");
    if (!chain->accepted) {
      chain->ct_outcome = CtOutcome::kNoPath;
      return 0;
    }
    if (logs_ptr == nullptr) {
      throw std::invalid_argument("no CT log set");
    }
    const CtLogs &logs = *static_cast<const CtLogs *>(logs_ptr);
    const bssl::ParsedCertificate &leaf = *chain->target;
    const int64_t now_ms = ToMillis(time);

    if (chain->issuer) {
      TbsWithSctExtension parts;
      switch (FindSctExtension(leaf.der_cert(), &parts)) {
        case SctExtension::kAbsent:
          break;
        case SctExtension::kMalformed:
          chain->ct_counts.scts++;  // an SCT list that cannot be read: one invalid SCT
          chain->ct_counts.invalid++;
          break;
        case SctExtension::kFound: {
          CBS list;
          if (!SctListOfExtension(parts.sct_extension, &list)) {
            chain->ct_counts.scts++;
            chain->ct_counts.invalid++;
            break;
          }
          SignedEntry precert;
          bool have_entry = PrecertEntry(parts, *chain->issuer, &chain->precert_tbs, &precert);
          VerifySctList(CBS_data(&list), CBS_len(&list), have_entry ? &precert : nullptr,
                        /*embedded=*/true, logs, now_ms, chain);
          break;
        }
      }
    }
    if (tls_scts != nullptr && tls_len > 0) {
      SignedEntry x509;
      bool have_entry = X509Entry(leaf, &x509);
      VerifySctList(tls_scts, tls_len, have_entry ? &x509 : nullptr, /*embedded=*/false, logs,
                    now_ms, chain);
    }

    Compliance compliance =
        CheckCtPolicy(leaf, chain->verified, logs, now_ms, &chain->embedded_logs);
    if (out != nullptr) {
      *out = chain->ct_counts;
    }
    switch (compliance) {
      case Compliance::kComplies:
        return 1;
      case Compliance::kNotEnoughScts:
        chain->ct_outcome = CtOutcome::kNotEnough;
        return 0;
      case Compliance::kNotDiverseScts:
        chain->ct_outcome = CtOutcome::kNotDiverse;
        return 0;
    }
    throw std::logic_error("unknown CT policy compliance");
  } catch (const std::exception &e) {
    chain->ct_error = e.what();
  } catch (...) {
    chain->ct_error = "an unknown C++ exception";
  }
  chain->ct_outcome = CtOutcome::kError;
  if (out != nullptr) {
    *out = chain->ct_counts;
  }
  return 0;
}

// The last VerifyCt's rejection in one line (Explain, untimed).
std::string DescribeCt(const Chain &chain) {
  const certbench_ct_counts &c = chain.ct_counts;
  std::string counts = " (" + std::to_string(c.scts) + " SCTs: " + std::to_string(c.valid) +
                       " valid, " + std::to_string(c.unknown_log) + " from unknown logs, " +
                       std::to_string(c.invalid) + " invalid" +
                       (chain.ct_future > 0 ? " (" + std::to_string(chain.ct_future) +
                                                  " timestamped after the check time)"
                                            : std::string()) +
                       "; " + std::to_string(c.checked) + " signatures checked)";
  switch (chain.ct_outcome) {
    case CtOutcome::kNone:
      break;
    case CtOutcome::kNoPath:
      return "CT not checked: the last verify or verify_ev accepted no path";
    case CtOutcome::kNotEnough:
      return "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: CT_POLICY_NOT_ENOUGH_SCTS" + counts;
    case CtOutcome::kNotDiverse:
      return "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: CT_POLICY_NOT_DIVERSE_SCTS" + counts;
    case CtOutcome::kError:
      return "CT check failed: " + (chain.ct_error.empty() ? std::string("an internal error")
                                                            : chain.ct_error);
  }
  return "no CT rejection recorded";
}

}  // namespace certbench_chrome
