// What the files of certbench's `chrome` shim share (private: not installed, not part of the
// ABI of ../certbench_verifier.h): BoringSSL's and libpki's headers, the store, chain and CT
// types, and the functions one file defines for another. Every symbol is hidden
// (-fvisibility=hidden) but the table's, which verifier.cc exports.
//
// The files, one job each (verifier.cc's header comment says what the shim models):
//   verifier.cc  the C ABI: the table of ../certbench_verifier.h and its one exported symbol;
//   store.cc     parsing certificates, trust stores (roots) and chains as sent;
//   path.cc      the EV table, path building and verification (EV then DV), the verified path,
//                the rejection text, start-up;
//   ct.cc        the CT log set, MultiLogCTVerifier::Verify over the accepted path, Chrome's CT
//                policy;
//   sct.cc       SCTs: the embedded list, the signed entries, decoding and verifying SCTs;
//   names.cc     the host name check (X509Certificate::VerifyHostname).
#ifndef CERTBENCH_CHROME_INTERNAL_H
#define CERTBENCH_CHROME_INTERNAL_H

#include <openssl/bytestring.h>
#include <openssl/digest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pki/verify_error.h>
#include <openssl/pool.h>
#include <openssl/sha.h>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../certbench_verifier.h"
#include "pki/cert_error_id.h"
#include "pki/cert_errors.h"
#include "pki/cert_issuer_source_static.h"
#include "pki/encode_values.h"
#include "pki/general_names.h"
#include "pki/input.h"
#include "pki/parse_values.h"
#include "pki/parsed_certificate.h"
#include "pki/path_builder.h"
#include "pki/simple_path_builder_delegate.h"
#include "pki/trust_store_in_memory.h"

namespace certbench_chrome {

// A SHA-256, an EV table row (shared with the firefox shim).
#include "../ev_table.h"

// As Chromium's cert_verify_proc_builtin.cc: "To avoid a denial-of-service risk, cap
// iterations by the path builder" (kPathBuilderIterationLimit).
constexpr uint32_t kPathBuilderIterationLimit = 20;
// As Chromium's kMinRsaModulusLengthBits, given to SimplePathBuilderDelegate.
constexpr size_t kMinRsaModulusLengthBits = 1024;

// Writes `why` into the reason buffer (truncated, NUL-terminated).
void Fail(char *reason, size_t cap, std::string_view why);
// The fail-closed test hook (tests/it/browsers.rs): throws where the test asks.
void MaybeThrow(const char *where);
// As Chromium's x509_util::DefaultParseCertificateOptions.
bssl::ParseCertificateOptions ParseOptions();
// One DER certificate parsed as Chromium parses it; null with `why` on failure.
std::shared_ptr<const bssl::ParsedCertificate> Parse(const certbench_der &der,
                                                     std::string *why);

// A trust store: the roots as Chrome trusts a root it does not ship, a locally trusted anchor
// (the platform's or an enterprise's, and what a test's roots are): its X.509 constraints and
// its expiry enforced (CertificateTrust ForTrustAnchor().WithEnforceAnchorConstraints()
// .WithEnforceAnchorExpiry(), as TrustStoreNSS/TrustStoreMac under the default-on
// kEnforceLocalAnchorConstraints, and as CertVerifyProcBuiltin adds additional anchors). The
// Chrome Root Store enforces them only for the roots it marks so (TrustStoreChrome).
struct Store {
  bssl::TrustStoreInMemory anchors;
};

// The outcome of the last VerifyCt on a chain, kept raw for Explain.
enum class CtOutcome {
  kNone,         // no VerifyCt since the last Verify/VerifyEv (or it complied)
  kNoPath,       // VerifyCt without an accepted path
  kNotEnough,    // CTPolicyCompliance::CT_POLICY_NOT_ENOUGH_SCTS
  kNotDiverse,   // CTPolicyCompliance::CT_POLICY_NOT_DIVERSE_SCTS
  kError,        // an exception; its text in `ct_error`
};

// One SCT that MultiLogCTVerifier gave SCT_STATUS_OK: what the CT policy reads of it.
struct VerifiedSct {
  size_t log;            // index into CtLogs::logs
  int64_t timestamp_ms;  // the SCT's timestamp, milliseconds since the Unix epoch
  bool embedded;         // SCT_EMBEDDED, else SCT_FROM_TLS_EXTENSION
};

// A chain as sent: the target and the other certificates as an issuer source, as
// CertVerifyProcBuiltin's AddIntermediatesToIssuerSource makes it (a certificate that does not
// parse is left out of the source, as there).
struct Chain {
  std::shared_ptr<const bssl::ParsedCertificate> target;
  bssl::CertIssuerSourceStatic intermediates;
  // The last rejection by Verify, kept raw for Explain: the path builder's result, or the text
  // of an exception (an error path) when `error` is not empty.
  bssl::CertPathBuilder::Result rejected;
  bool has_rejection = false;
  std::string error;

  // Set when the last Verify or VerifyEv accepted: the accepted path's certs[1], the target's
  // issuer that CheckPathAfterVerification hands to the CT verifier as the only intermediate
  // (null for a one-certificate path, whose target is itself the anchor: Chromium then has no
  // issuer and checks no embedded SCT). A shared_ptr copy, so the timed verify barely notices.
  bool accepted = false;
  std::shared_ptr<const bssl::ParsedCertificate> issuer;
  // Set with `accepted`: the accepted path (the CertPathBuilder result's best valid path,
  // `certs`: target first, the trust anchor last), as CertVerifyProcBuiltin hands it on to
  // its revocation check (the CRLSet's, CheckChainRevocationUsingCRLSet) and VerifiedPath
  // returns it. `pinned` keeps every certificate a path returned by VerifiedPath ever held,
  // until ChainFree, so that the DER handed out stays valid after a later Verify and after
  // the store is freed (the anchor is the store's); shared_ptr copies, no DER copied.
  std::vector<std::shared_ptr<const bssl::ParsedCertificate>> path;
  std::vector<std::shared_ptr<const bssl::ParsedCertificate>> pinned;

  // The last VerifyCt: its outcome and counts, rendered by Explain only; and scratch space
  // reused across calls (cleared, never shrunk), so that a warm VerifyCt allocates nothing of
  // its own.
  CtOutcome ct_outcome = CtOutcome::kNone;
  certbench_ct_counts ct_counts = {};
  uint32_t ct_future = 0;  // of ct_counts.invalid: good signatures timestamped after the check
  std::string ct_error;
  std::vector<uint8_t> precert_tbs;
  std::vector<VerifiedSct> verified;
  std::vector<size_t> embedded_logs;
};

// The EV table (path.cc), built once, before anything is timed.
struct EvTable;
const EvTable &Ev();

// Certificate Transparency (ct.cc, sct.cc).
// kEmbeddedSCTOid), in DER.
constexpr uint8_t kEmbeddedSctOid[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02};

// ct::DigitallySigned's values (RFC 5246 7.4.1.4.1): the hash and signature algorithms an SCT
// names, of which a log's key accepts exactly one pair (SHA-256 with RSA or with ECDSA).
constexpr uint8_t kHashSha256 = 4;
constexpr uint8_t kMaxHashAlgorithm = 6;  // sha512
constexpr uint8_t kSignatureRsa = 1;
constexpr uint8_t kSignatureEcdsa = 3;
constexpr uint8_t kMaxSignatureAlgorithm = 3;  // ecdsa

// One log of the set, as CTLogVerifier holds it.
struct CtLog {
  Sha256 id;  // SHA-256 of the key's DER (key_id)
  bssl::UniquePtr<EVP_PKEY> key;
  uint8_t signature_algorithm = 0;  // kSignatureRsa or kSignatureEcdsa; the hash is SHA-256
  std::string description;
  size_t operator_index = 0;  // into CtLogs::operators
  bool retired = false;       // in ChromeCTPolicyEnforcer's disqualified_logs
  int64_t retired_at_ms = 0;  // its disqualification time
};

// The log set, as MultiLogCTVerifier's logs_ map (by key id) and the policy enforcer's log info
// (operators interned, compared by index). Read-only once built: shared by threads.
struct CtLogs {
  std::vector<CtLog> logs;  // sorted by id, ids unique
  std::vector<std::string> operators;

  // The log with this id, or nullptr (an unknown log).
  const CtLog *Find(const uint8_t *id, size_t len) const {
    if (len != std::tuple_size<Sha256>::value) {
      return nullptr;
    }
    auto it = std::lower_bound(logs.begin(), logs.end(), id, [](const CtLog &log, const uint8_t *key) {
      return std::memcmp(log.id.data(), key, log.id.size()) < 0;
    });
    if (it == logs.end() || std::memcmp(it->id.data(), id, it->id.size()) != 0) {
      return nullptr;
    }
    return &*it;
  }
};

// The certificate's TBSCertificate cut where the SCT list extension sits.
struct TbsWithSctExtension {
  CBS tbs;            // the TBSCertificate's contents
  CBS before_ext;     // the TBSCertificate's contents from the [3] extensions on
  CBS extensions;     // the Extensions SEQUENCE's contents
  CBS sct_extension;  // the SCT list Extension element, within `extensions`
};

enum class SctExtension { kAbsent, kFound, kMalformed };

// A SignedEntryData, serialized as EncodeSignedEntry does, in two parts: `head` (the entry type,
// for a precertificate the issuer key hash, then the 24-bit length) and `body` (the certificate
// or the TBSCertificate), so that the body is hashed where it lies.
struct SignedEntry {
  uint8_t head[2 + SHA256_DIGEST_LENGTH + 3];
  size_t head_len = 0;
  const uint8_t *body = nullptr;
  size_t body_len = 0;
};

// sct.cc, for ct.cc's VerifyCt.
SctExtension FindSctExtension(bssl::der::Input der, TbsWithSctExtension *out);
bool SctListOfExtension(CBS element, CBS *list);
bool X509Entry(const bssl::ParsedCertificate &leaf, SignedEntry *entry);
bool PrecertEntry(const TbsWithSctExtension &parts, const bssl::ParsedCertificate &issuer,
                  std::vector<uint8_t> *buffer, SignedEntry *entry);
void VerifySctList(const uint8_t *data, size_t len, const SignedEntry *entry, bool embedded,
                   const CtLogs &logs, int64_t now_ms, Chain *chain);

// The table's functions (verifier.cc), defined by store.cc, path.cc, ct.cc and names.cc.
int Init(char *reason, size_t cap);
void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason,
               size_t cap);
void StoreFree(void *store);
void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap);
void ChainFree(void *chain);
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time);
int Verify(const void *store_ptr, void *chain_ptr, int64_t time);
void Explain(void *chain_ptr, char *reason, size_t cap);
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap);
void *CtLogsNew(const certbench_ct_log *in, size_t n, int cache_signatures, char *reason,
                size_t cap);
void CtLogsFree(void *logs);
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out);
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap);
int VerifiedScts(void *, certbench_verified_sct *, size_t);

// ct.cc, for Explain (path.cc).
std::string DescribeCt(const Chain &chain);

}  // namespace certbench_chrome

#endif  // CERTBENCH_CHROME_INTERNAL_H
