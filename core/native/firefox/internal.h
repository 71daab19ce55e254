// What the files of certbench's `firefox` shim share (private: not part of the ABI of
// ../certbench_verifier.h): NSS's and mozilla::pkix's headers, the store, chain and CT types,
// and the functions one file defines for another. Every symbol is hidden
// (-fvisibility=hidden) but the table's, which verifier.cc exports.
//
// The files, one job each (verifier.cc's header comment says what the shim models):
//   verifier.cc  the C ABI: the table of ../certbench_verifier.h and its one exported symbol;
//   store.cc     NSS start-up, reasons, trust stores (roots) and chains as sent;
//   path.cc      the EV table, the trust domain (NSSCertDBTrustDomain's choices, revocation
//                left to certbench's CRLite), path building (EV then DV), the verified path,
//                the rejection text, start-up;
//   ct_logs.cc   the CT log set (CTLogVerifier::Init) and the SCT signature parameters' hash;
//   sct.cc       SCT encoding: decoding SCTs, the precertificate TBS, the signed data;
//   ct.cc        verifying SCTs (MultiLogCTVerifier), Gecko's CT policy, VerifyCt and the
//                valid SCTs handed to the CRLite check (VerifiedScts);
//   names.cc     the host name check (CheckCertHostname).
#ifndef CERTBENCH_FIREFOX_INTERNAL_H
#define CERTBENCH_FIREFOX_INTERNAL_H

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../certbench_verifier.h"
#include "mozpkix/pkix.h"
#include "mozpkix/pkixcheck.h"
#include "mozpkix/pkixder.h"
#include "mozpkix/pkixnss.h"
#include "mozpkix/pkixutil.h"
#include "nss.h"
#include "pk11pub.h"

using namespace mozilla::pkix;

namespace certbench_firefox {

// A SHA-256, an EV table row (shared with the chrome shim).
#include "../ev_table.h"

// Firefox's key sizes for TLS servers (CertVerifier.h): MIN_RSA_BITS first, then
// MIN_RSA_BITS_WEAK (VerifyCert's keySizeOptions), whose success VerifyCert turns into
// ERROR_INADEQUATE_KEY_SIZE when the root is built in, as every root of a store is here.
constexpr unsigned int kMinRsaBits = 2048;
constexpr unsigned int kMinRsaBitsWeak = 1024;

using Der = std::vector<uint8_t>;

// The roots, unchanged after StoreNew: shared by threads. They play the part of Firefox's
// built-in roots module, which FindIssuer searches by subject (PK11_FindRawCertsWithSubject)
// and whose certificates GetCertTrust finds trusted: an index by subject, a set by DER.
struct Store {
  std::vector<Der> roots;
  // Views into `roots`: subject -> indices in the order given, and every root's DER.
  std::unordered_map<std::string_view, std::vector<size_t>> by_subject;
  std::unordered_set<std::string_view> ders;
};

// Signature checks already made in this verification, keyed by the tuple that defines a
// signature, as Firefox's SignatureCache (CertVerifier.cpp: VerifySignedDataWithCache). Firefox's
// lives as long as the process and keeps successes; this one lives for one verification (all
// its attempts), so that each verification of a chain is priced in full, and keeps failures
// too (the pathological chains of one subject and many keys: minutes without).
using SignatureCache = std::unordered_map<std::string, Result>;

// A chain as sent: the end entity, then the other certificates; and the last rejection by
// Verify, kept raw for Explain: mozilla::pkix's result, or a text (an exception's, an error path)
// when `error` is not empty.
struct Chain {
  Der leaf;
  std::vector<Der> intermediates;
  Result rejected = Success;  // Success: no rejection recorded
  // The signatures checked by this verification's attempts, EV and DV alike (VerifyEv starts
  // a verification and empties it; Verify goes on with it).
  SignatureCache signatures;
  std::string error;

  // What VerifyCertificateTransparencyPolicy takes from the accepted path, kept when the last
  // VerifyEv or Verify accepted (`accepted`): the built chain's second certificate, the end
  // entity's issuer (builtChain[1], from the last IsChainValid; empty when the end entity is
  // itself the anchor), and the end entity's embedded SCT list as mozilla::pkix notes it
  // (NoteAuxiliaryExtension(EmbeddedSCTList), NSSCertDBTrustDomain's
  // mSCTListFromCertificate; empty when absent). Copies: a store need not outlive the chain.
  bool accepted = false;
  Der issuer;
  Der embedded_scts;
  // Set with `accepted`: the built chain (NSSCertDBTrustDomain's mBuiltChain: the chain the
  // last IsChainValid was given, reversed, end entity first and the trust anchor last), which
  // Gecko's revocation checks read and VerifiedPath returns. Views into `leaf`, `intermediates`
  // or `kept`, which keeps a copy of every certificate of a path the chain does not own (the
  // store's roots) until ChainFree: what VerifiedPath hands out stays valid after a later
  // Verify and after the store is freed. A chain's first acceptance copies its anchor; later
  // ones find it kept.
  std::vector<certbench_der> path;
  std::list<Der> kept;

  // The last VerifyCt, kept raw for Explain (which reports it when `ct_last`): its counts, and
  // either a fatal result or an error text, or ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY with
  // the CTPolicyCompliance value. Verify and VerifyEv clear `ct_last`.
  bool ct_last = false;
  bool ct_failed = false;
  Result ct_rejected = Success;
  int ct_compliance = 0;  // enum class CtCompliance, below
  std::string ct_error;
  certbench_ct_counts ct_counts{};
  // The last VerifyCt's valid SCTs (VerifiedSCTs), for the CRLite query (VerifiedScts);
  // `ct_verified_kept` is false until a VerifyCt ran since the last Verify/VerifyEv.
  std::vector<certbench_verified_sct> ct_verified;
  bool ct_verified_kept = false;
};

// CTPolicyEnforcer.h's CTPolicyCompliance (Unknown is never a result of CheckCTPolicyCompliance).
enum class CtCompliance { Compliant = 0, NotEnoughScts = 1, NotDiverseScts = 2 };

// The EV table (path.cc), built once, before anything is timed.
struct EvTable;

// The size of Firefox's SCT signature cache: security.pki.sct_signature_cache_size (default
// 256 in StaticPrefList.yaml), the capacity MultiLogCTVerifier gives signature_cache_new.
constexpr size_t kSctSignatureCacheSize = 256;

// RFC 6962's DigitallySigned algorithm numbers, as Gecko's DigitallySigned enums hold them
// (SignedCertificateTimestamp.h): the values a decoded SCT may carry.
enum class CtHash : uint8_t { None = 0, MD5 = 1, SHA1 = 2, SHA224 = 3, SHA256 = 4, SHA384 = 5,
                              SHA512 = 6 };
enum class CtSignature : uint8_t { Anonymous = 0, RSA = 1, DSA = 2, ECDSA = 3 };

using Sha512 = std::array<uint8_t, 64>;

// Firefox's SCT signature cache (security/certverifier/signature_cache/src/lib.rs, the
// SignatureCache MultiLogCTVerifier owns): a least-recently-used set of SHA-512 hashes of
// signature parameters (HashSignatureParams), each one a signature that verified; a lookup
// that hits counts as a use; a full cache drops its least recently used entry. Locked, as
// there (a Mutex around hashlink's LruCache): one log set serves every thread.
class SctSignatureCache {
 public:
  explicit SctSignatureCache(size_t capacity) : capacity_(capacity) {}

  bool Get(const Sha512 &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto hit = index_.find(key);
    if (hit == index_.end()) {
      return false;
    }
    order_.splice(order_.end(), order_, hit->second);  // now the most recently used
    return true;
  }

  void Insert(const Sha512 &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto hit = index_.find(key);
    if (hit != index_.end()) {
      order_.splice(order_.end(), order_, hit->second);
      return;
    }
    if (capacity_ == 0) {
      return;
    }
    if (index_.size() >= capacity_) {
      index_.erase(order_.front());
      order_.pop_front();
    }
    order_.push_back(key);
    index_.emplace(key, std::prev(order_.end()));
  }

 private:
  struct KeyHash {
    size_t operator()(const Sha512 &key) const {
      size_t h;
      std::memcpy(&h, key.data(), sizeof h);  // a SHA-512 is uniform enough
      return h;
    }
  };
  std::mutex mutex_;
  size_t capacity_;
  std::list<Sha512> order_;  // least recently used first
  std::unordered_map<Sha512, std::list<Sha512>::iterator, KeyHash> index_;
};

// One known log, as CTLogVerifier holds it after Init.
struct CtLog {
  Sha256 key_id;          // SHA-256 of the key (mKeyId), equal to the list's log id
  Der spki;               // mSubjectPublicKeyInfo
  CtSignature algorithm;  // mSignatureAlgorithm: RSA or ECDSA
  uint16_t operator_id;   // mOperatorId: one per distinct operator name
  bool retired;           // mState: Retired, else Admissible
  uint64_t retired_at_ms; // mTimestamp of a retired log, in milliseconds as CTKnownLogs.h
  std::string description;
};

// A log set: MultiLogCTVerifier's logs and, when asked, its SCT signature cache. Unchanged after
// CtLogsNew but for the cache, which locks itself.
struct CtLogs {
  std::vector<CtLog> logs;
  std::unique_ptr<SctSignatureCache> cache;  // null: no cache (every signature checked)
};

// A decoded SCT (SignedCertificateTimestamp): views into the list it came from.
struct Sct {
  Input log_id;        // 32 bytes
  uint64_t timestamp;  // milliseconds since the epoch
  Input extensions;
  uint64_t hash;       // CtHash
  uint64_t signature_algorithm;  // CtSignature
  Input signature;
};

// CTObjectsExtractor.cpp's PrecertTBSExtractor: the end entity's TBSCertificate with the
// embedded SCT list extension (1.3.6.1.4.1.11129.2.4.2) removed, the TLV headers rewritten
// (lengths below 65536: larger ones are FATAL_ERROR_INVALID_ARGS, as MakeTLVHeader); without
// any extension left, the extensions [3] field is dropped too. The extensions must be the
// TBSCertificate's last field.
constexpr uint8_t kEmbeddedSctListOid[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                           0xd6, 0x79, 0x02, 0x04, 0x02};
constexpr uint8_t kExtensionsTag = der::CONTEXT_SPECIFIC | der::CONSTRUCTED | 3;

// A LogEntry (SignedCertificateTimestamp.h): the X.509 entry (the end entity as sent) for an
// SCT from TLS, the precertificate entry (the issuer's key hash and the precertificate's
// TBSCertificate) for an embedded one.
struct LogEntry {
  bool precert = false;
  Input leaf;          // X509
  Sha256 issuer_key_hash{};  // Precert: SHA-256 of the issuer's SubjectPublicKeyInfo
  Der tbs;             // Precert
};

enum class SctOrigin { Embedded, TLSExtension };

// VerifiedSCT: an SCT that passed, with what the policy reads of its log.
struct VerifiedSct {
  const CtLog *log;
  SctOrigin origin;
  uint64_t timestamp;
  // The log's state at the time of the check: a log whose retirement certbench's list dates
  // after the validation time was admissible then (Gecko's built-in list is the one of its
  // build; certbench checks each chain at its own time, see corpus/ct-logs/PROVENANCE.md).
  bool retired;
};

// Defined in one file, called from another (the table's functions included).
void Fail(char *reason, size_t cap, std::string_view why);
void MaybeThrow(const char *where);
bool NssReady(std::string *why);
std::string Name(Result rv);
bool ToInput(const Der &der, Input *input);
std::string_view View(Input in);
void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason, size_t cap);
void StoreFree(void *store);
void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap);
void ChainFree(void *chain);
bool OidToPolicy(std::string_view dotted, CertPolicyId *out);
const EvTable &Ev();
std::vector<CertPolicyId> KnownEvPolicies(Input leaf);
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time);
int Verify(const void *store_ptr, void *chain_ptr, int64_t time);
void Explain(void *chain_ptr, char *reason, size_t cap);
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap);
int Init(char *reason, size_t cap);
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap);
bool HashSignatureParams(Input data, Input signature, Input spki, der::PublicKeyAlgorithm alg,
                         DigestAlgorithm digest, Sha512 *out);
void *CtLogsNew(const certbench_ct_log *logs, size_t n, int cache_signatures, char *reason,
                size_t cap);
void CtLogsFree(void *logs);
Result ReadUint(Reader &in, size_t n, uint64_t &out);
Result ReadVariableBytes(Reader &in, size_t prefix, Input &out);
void WriteUint(Der &out, size_t n, uint64_t value);
Result WriteVariableBytes(Der &out, size_t prefix, const uint8_t *data, size_t len);
Result DecodeSctExtensions(Input extensions);
Result DecodeSct(Input encoded, Sct &sct);
Result WriteTlvHeader(Der &out, uint8_t tag, size_t len);
size_t TlvHeaderLength(size_t len);
Result PrecertTbs(Input certificate, Der &out);
Result EncodeLogEntry(const LogEntry &entry, Der &out);
Result EncodeV1SctSignedData(uint64_t timestamp, const Der &entry, Input extensions, Der &out);
const char *ComplianceName(int compliance);
uint64_t EffectiveIssuanceTime(const std::vector<VerifiedSct> &scts);
bool LogWasQualifiedForSct(const VerifiedSct &sct, uint64_t issuance_time);
CtCompliance EmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts, uint64_t issuance_time,
                                   Duration lifetime);
CtCompliance NonEmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts);
CtCompliance CheckCtPolicyCompliance(const std::vector<VerifiedSct> &scts, Duration lifetime);
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out);
int VerifiedScts(void *chain_ptr, certbench_verified_sct *out, size_t cap);

// Runs an entry point's body: any C++ exception becomes `failed` with its reason, so nothing
// is thrown across the C ABI and an internal error is a rejection.
template <typename T, typename F>
T Guarded(char *reason, size_t cap, T failed, F body) {
  try {
    return body();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return failed;
}

}  // namespace certbench_firefox

#endif  // CERTBENCH_FIREFOX_INTERNAL_H
