// certbench's `chrome` shim, SCTs: the embedded SCT list extension, the signed entries (X.509 and
// precertificate, as ct_objects_extractor.cc builds them), decoding an SCT list and verifying
// each SCT's signature (MultiLogCTVerifier::VerifySCTs).

#include "internal.h"

namespace certbench_chrome {

// ct_objects_extractor.cc's SkipTBSCertificateToExtensions: past the optional version, the six
// fields serialNumber..subjectPublicKeyInfo, and the optional issuer/subject unique ids.
bool SkipOptional(CBS *cbs, CBS_ASN1_TAG tag) {
  CBS unused;
  return !CBS_peek_asn1_tag(cbs, tag) || CBS_get_asn1(cbs, &unused, tag);
}

bool SkipTbsToExtensions(CBS *tbs) {
  if (!SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0)) {
    return false;
  }
  for (int i = 0; i < 6; i++) {
    if (!CBS_get_any_asn1_element(tbs, nullptr, nullptr, nullptr)) {
      return false;
    }
  }
  return SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | 1) &&
         SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | 2);
}

constexpr CBS_ASN1_TAG kExtensionsTag = CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 3;


// ExtractEmbeddedSCTList's and GetPrecertSignedEntry's walk: the TBSCertificate down to its
// extensions, then the one extension with the SCT list OID (FindExtensionElement: a second one is
// malformed).
SctExtension FindSctExtension(bssl::der::Input der, TbsWithSctExtension *out) {
  CBS cert, body, wrap;
  CBS_init(&cert, der.data(), der.size());
  if (!CBS_get_asn1(&cert, &body, CBS_ASN1_SEQUENCE) || CBS_len(&cert) != 0 ||
      !CBS_get_asn1(&body, &out->tbs, CBS_ASN1_SEQUENCE)) {
    return SctExtension::kMalformed;
  }
  CBS rest = out->tbs;
  if (!SkipTbsToExtensions(&rest)) {
    return SctExtension::kMalformed;
  }
  out->before_ext = rest;
  if (CBS_len(&rest) == 0) {
    return SctExtension::kAbsent;  // no extensions at all
  }
  if (!CBS_get_asn1(&rest, &wrap, kExtensionsTag) ||
      !CBS_get_asn1(&wrap, &out->extensions, CBS_ASN1_SEQUENCE) || CBS_len(&wrap) != 0 ||
      CBS_len(&rest) != 0) {
    return SctExtension::kMalformed;
  }
  CBS extensions = out->extensions;
  bool found = false;
  while (CBS_len(&extensions) > 0) {
    CBS element, extension, oid;
    if (!CBS_get_asn1_element(&extensions, &element, CBS_ASN1_SEQUENCE)) {
      return SctExtension::kMalformed;
    }
    CBS copy = element;
    if (!CBS_get_asn1(&copy, &extension, CBS_ASN1_SEQUENCE) ||
        !CBS_get_asn1(&extension, &oid, CBS_ASN1_OBJECT)) {
      return SctExtension::kMalformed;
    }
    if (CBS_mem_equal(&oid, kEmbeddedSctOid, sizeof(kEmbeddedSctOid))) {
      if (found) {
        return SctExtension::kMalformed;
      }
      found = true;
      out->sct_extension = element;
    }
  }
  return found ? SctExtension::kFound : SctExtension::kAbsent;
}

// ParseSCTListFromExtensions: the extension's value is an OCTET STRING holding an OCTET STRING,
// the TLS-encoded SignedCertificateTimestampList.
bool SctListOfExtension(CBS element, CBS *list) {
  CBS extension, oid, value;
  return CBS_get_asn1(&element, &extension, CBS_ASN1_SEQUENCE) &&
         CBS_get_asn1(&extension, &oid, CBS_ASN1_OBJECT) &&
         SkipOptional(&extension, CBS_ASN1_BOOLEAN) &&
         CBS_get_asn1(&extension, &value, CBS_ASN1_OCTETSTRING) && CBS_len(&extension) == 0 &&
         CBS_get_asn1(&value, list, CBS_ASN1_OCTETSTRING) && CBS_len(&value) == 0;
}


bool PutU24Length(size_t len, uint8_t *out) {
  if (len > 0xffffff) {
    return false;
  }
  out[0] = static_cast<uint8_t>(len >> 16);
  out[1] = static_cast<uint8_t>(len >> 8);
  out[2] = static_cast<uint8_t>(len);
  return true;
}

// GetX509SignedEntry: the certificate as sent (LogEntryType x509_entry).
bool X509Entry(const bssl::ParsedCertificate &leaf, SignedEntry *entry) {
  entry->head[0] = 0;
  entry->head[1] = 0;
  entry->body = leaf.der_cert().data();
  entry->body_len = leaf.der_cert().size();
  entry->head_len = 5;
  return PutU24Length(entry->body_len, entry->head + 2);
}

// GetPrecertSignedEntry (LogEntryType precert_entry): the TBSCertificate re-encoded without the
// SCT list extension (into the chain's reused buffer), and the SHA-256 of the issuer's
// SubjectPublicKeyInfo.
bool PrecertEntry(const TbsWithSctExtension &parts, const bssl::ParsedCertificate &issuer,
                  std::vector<uint8_t> *buffer, SignedEntry *entry) {
  // The new TBSCertificate is shorter than the certificate it comes from.
  size_t capacity = CBS_len(&parts.tbs) + 16;
  if (buffer->size() < capacity) {
    buffer->resize(capacity);
  }
  CBB cbb, tbs, wrap, extensions;
  CBB_init_fixed(&cbb, buffer->data(), buffer->size());
  const uint8_t *sct_start = CBS_data(&parts.sct_extension);
  const uint8_t *sct_end = sct_start + CBS_len(&parts.sct_extension);
  const uint8_t *extensions_end = CBS_data(&parts.extensions) + CBS_len(&parts.extensions);
  uint8_t *data = nullptr;
  size_t len = 0;
  if (!CBB_add_asn1(&cbb, &tbs, CBS_ASN1_SEQUENCE) ||
      !CBB_add_bytes(&tbs, CBS_data(&parts.tbs),
                     static_cast<size_t>(CBS_data(&parts.before_ext) - CBS_data(&parts.tbs))) ||
      !CBB_add_asn1(&tbs, &wrap, kExtensionsTag) ||
      !CBB_add_asn1(&wrap, &extensions, CBS_ASN1_SEQUENCE) ||
      !CBB_add_bytes(&extensions, CBS_data(&parts.extensions),
                     static_cast<size_t>(sct_start - CBS_data(&parts.extensions))) ||
      !CBB_add_bytes(&extensions, sct_end, static_cast<size_t>(extensions_end - sct_end)) ||
      !CBB_finish(&cbb, &data, &len)) {
    CBB_cleanup(&cbb);
    return false;
  }
  entry->head[0] = 0;
  entry->head[1] = 1;
  bssl::der::Input spki = issuer.tbs().spki_tlv;
  SHA256(spki.data(), spki.size(), entry->head + 2);
  entry->body = data;
  entry->body_len = len;
  entry->head_len = 2 + SHA256_DIGEST_LENGTH + 3;
  return PutU24Length(len, entry->head + 2 + SHA256_DIGEST_LENGTH);
}

// DecodeSCTList's checks, before any SCT is read: a 16-bit length-prefixed list that is the
// whole input, of at least one non-empty 16-bit length-prefixed item.
bool SctList(const uint8_t *data, size_t len, CBS *items) {
  CBS in, list;
  CBS_init(&in, data, len);
  if (!CBS_get_u16_length_prefixed(&in, &list) || CBS_len(&in) != 0 || CBS_len(&list) == 0) {
    return false;
  }
  *items = list;
  while (CBS_len(&list) > 0) {
    CBS item;
    if (!CBS_get_u16_length_prefixed(&list, &item) || CBS_len(&item) == 0) {
      return false;
    }
  }
  return true;
}

// A SignedCertificateTimestamp, as DecodeSignedCertificateTimestamp reads it (views into the
// input; bytes after the signature are ignored, as there).
struct Sct {
  CBS log_id;
  uint64_t timestamp = 0;  // milliseconds since the Unix epoch
  CBS extensions;
  uint8_t hash_algorithm = 0;
  uint8_t signature_algorithm = 0;
  CBS signature;
};

bool DecodeSct(CBS in, Sct *sct) {
  uint8_t version;
  return CBS_get_u8(&in, &version) && version == 0 /* v1 */ &&
         CBS_get_bytes(&in, &sct->log_id, SHA256_DIGEST_LENGTH) &&
         CBS_get_u64(&in, &sct->timestamp) && sct->timestamp <= static_cast<uint64_t>(INT64_MAX) &&
         CBS_get_u16_length_prefixed(&in, &sct->extensions) &&
         CBS_get_u8(&in, &sct->hash_algorithm) && sct->hash_algorithm <= kMaxHashAlgorithm &&
         CBS_get_u8(&in, &sct->signature_algorithm) &&
         sct->signature_algorithm <= kMaxSignatureAlgorithm &&
         CBS_get_u16_length_prefixed(&in, &sct->signature);
}

// CTLogVerifier::Verify: the SCT's hash and signature algorithms must be the log's (SHA-256 and
// its key's kind), then VerifySignature over EncodeV1SCTSignedData (version, signature type
// certificate_timestamp, timestamp, the entry, the extensions), hashed in parts.
bool VerifySctSignature(const CtLog &log, const SignedEntry &entry, const Sct &sct,
                        uint32_t *checked) {
  if (sct.hash_algorithm != kHashSha256 || sct.signature_algorithm != log.signature_algorithm) {
    return false;
  }
  uint8_t head[10] = {0 /* v1 */, 0 /* certificate_timestamp */};
  for (int i = 0; i < 8; i++) {
    head[2 + i] = static_cast<uint8_t>(sct.timestamp >> (56 - 8 * i));
  }
  size_t extensions_len = CBS_len(&sct.extensions);
  uint8_t extensions_head[2] = {static_cast<uint8_t>(extensions_len >> 8),
                                static_cast<uint8_t>(extensions_len)};
  ++*checked;
  bssl::ScopedEVP_MD_CTX ctx;
  bool ok = EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, log.key.get()) &&
            EVP_DigestVerifyUpdate(ctx.get(), head, sizeof(head)) &&
            EVP_DigestVerifyUpdate(ctx.get(), entry.head, entry.head_len) &&
            EVP_DigestVerifyUpdate(ctx.get(), entry.body, entry.body_len) &&
            EVP_DigestVerifyUpdate(ctx.get(), extensions_head, sizeof(extensions_head)) &&
            EVP_DigestVerifyUpdate(ctx.get(), CBS_data(&sct.extensions), extensions_len) &&
            EVP_DigestVerifyFinal(ctx.get(), CBS_data(&sct.signature), CBS_len(&sct.signature));
  if (!ok) {
    ERR_clear_error();
  }
  return ok;
}

// MultiLogCTVerifier::VerifySCTs and VerifySingleSCT over one encoded list: each SCT from a log
// of the set whose signature is good over `entry` and whose timestamp is not after `now_ms` is
// SCT_STATUS_OK, kept for the policy. Counted: SCT_STATUS_LOG_UNKNOWN as unknown_log;
// SCT_STATUS_INVALID_SIGNATURE, SCT_STATUS_INVALID_TIMESTAMP and an SCT that does not decode
// (which Chromium drops uncounted) as invalid; a list that does not decode (which Chromium drops
// whole) as one invalid SCT. `entry` null: the entry could not be built (GetPrecertSignedEntry
// failed), and no SCT of the list is verified. Unlike Chromium, which returns before decoding
// anything when it knows no log, the SCTs are read with an empty set too (all unknown: the same
// policy outcome, and honest counts).
void VerifySctList(const uint8_t *data, size_t len, const SignedEntry *entry, bool embedded,
                   const CtLogs &logs, int64_t now_ms, Chain *chain) {
  certbench_ct_counts &counts = chain->ct_counts;
  CBS list;
  if (!SctList(data, len, &list)) {
    counts.scts++;
    counts.invalid++;
    return;
  }
  while (CBS_len(&list) > 0) {
    CBS item;
    CBS_get_u16_length_prefixed(&list, &item);  // checked by SctList
    counts.scts++;
    Sct sct;
    if (!DecodeSct(item, &sct)) {
      counts.invalid++;
      continue;
    }
    const CtLog *log = logs.Find(CBS_data(&sct.log_id), CBS_len(&sct.log_id));
    if (log == nullptr) {
      counts.unknown_log++;
      continue;
    }
    if (entry == nullptr || !VerifySctSignature(*log, *entry, sct, &counts.checked)) {
      counts.invalid++;
      continue;
    }
    if (static_cast<int64_t>(sct.timestamp) > now_ms) {
      counts.invalid++;
      chain->ct_future++;
      continue;
    }
    counts.valid++;
    chain->verified.push_back(VerifiedSct{static_cast<size_t>(log - logs.logs.data()),
                                          static_cast<int64_t>(sct.timestamp), embedded});
  }
}

}  // namespace certbench_chrome
