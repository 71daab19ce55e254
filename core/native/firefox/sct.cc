// certbench's `firefox` shim, SCT encoding (CTSerialization, CTObjectsExtractor): decoding an
// SCT, the precertificate TBS, and the signed data an SCT's signature covers.

#include "internal.h"

namespace certbench_firefox {

// CTUtils.h's readers: a big-endian unsigned integer of `n` bytes, and bytes preceded by
// their length in `prefix` bytes.
Result ReadUint(Reader &in, size_t n, uint64_t &out) {
  out = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t byte;
    Result rv = in.Read(byte);
    if (rv != Success) {
      return rv;
    }
    out = (out << 8) | byte;
  }
  return Success;
}

Result ReadVariableBytes(Reader &in, size_t prefix, Input &out) {
  uint64_t len;
  Result rv = ReadUint(in, prefix, len);
  if (rv != Success) {
    return rv;
  }
  if (len > std::numeric_limits<Input::size_type>::max()) {
    return Result::ERROR_BAD_DER;
  }
  return in.Skip(static_cast<Input::size_type>(len), out);
}

// CTSerialization.cpp's writers: an integer of `n` bytes, and bytes preceded by their length
// in `prefix` bytes (too long: FATAL_ERROR_INVALID_ARGS, as WriteVariableBytesPrefix).
void WriteUint(Der &out, size_t n, uint64_t value) {
  for (; n > 0; n--) {
    out.push_back(static_cast<uint8_t>(value >> ((n - 1) * 8)));
  }
}

Result WriteVariableBytes(Der &out, size_t prefix, const uint8_t *data, size_t len) {
  if (len > (size_t{1} << (prefix * 8)) - 1) {
    return Result::FATAL_ERROR_INVALID_ARGS;
  }
  WriteUint(out, prefix, len);
  out.insert(out.end(), data, data + len);
  return Success;
}

// SignedCertificateTimestamp::DecodeExtensions: a sequence of (type, data<0..2^16-1>); the
// leaf_index extension (type 0, a 40-bit big-endian integer) at most once and exactly 5 bytes;
// other types ignored. The leaf index itself only matters for a tiled log (see VerifyCt).
Result DecodeSctExtensions(Input extensions) {
  Reader in(extensions);
  bool leaf_index = false;
  while (!in.AtEnd()) {
    uint64_t type;
    Input data;
    Result rv = ReadUint(in, 1, type);
    if (rv == Success) {
      rv = ReadVariableBytes(in, 2, data);
    }
    if (rv != Success) {
      return rv;
    }
    if (type == 0) {
      if (leaf_index) {
        return Result::ERROR_EXTENSION_VALUE_INVALID;
      }
      Reader index(data);
      uint64_t value;
      rv = ReadUint(index, 5, value);
      if (rv != Success) {
        return rv;
      }
      if (!index.AtEnd()) {
        return Result::ERROR_EXTENSION_VALUE_INVALID;
      }
      leaf_index = true;
    }
  }
  return Success;
}

// CTSerialization.cpp's DecodeSignedCertificateTimestamp: version v1 (0), the log id (32
// bytes), the timestamp (8), the extensions (2-byte length), then DigitallySigned: the hash
// (a known value, 0-6), the signature algorithm (0-3), the signature (2-byte length). Bytes
// after the signature are not checked, as there.
Result DecodeSct(Input encoded, Sct &sct) {
  Reader in(encoded);
  uint64_t version;
  Result rv = ReadUint(in, 1, version);
  if (rv != Success) {
    return rv;
  }
  if (version != 0) {
    return Result::ERROR_BAD_DER;
  }
  rv = in.Skip(32, sct.log_id);
  if (rv == Success) {
    rv = ReadUint(in, 8, sct.timestamp);
  }
  if (rv == Success) {
    rv = ReadVariableBytes(in, 2, sct.extensions);
  }
  if (rv == Success) {
    rv = ReadUint(in, 1, sct.hash);
  }
  if (rv == Success && sct.hash > static_cast<uint64_t>(CtHash::SHA512)) {
    rv = Result::ERROR_BAD_DER;
  }
  if (rv == Success) {
    rv = ReadUint(in, 1, sct.signature_algorithm);
  }
  if (rv == Success && sct.signature_algorithm > static_cast<uint64_t>(CtSignature::ECDSA)) {
    rv = Result::ERROR_BAD_DER;
  }
  if (rv == Success) {
    rv = ReadVariableBytes(in, 2, sct.signature);
  }
  if (rv != Success) {
    return rv;
  }
  return DecodeSctExtensions(sct.extensions);
}

Result WriteTlvHeader(Der &out, uint8_t tag, size_t len) {
  out.push_back(tag);
  if (len < 128) {
    out.push_back(static_cast<uint8_t>(len));
  } else if (len < 256) {
    out.push_back(0x81);
    out.push_back(static_cast<uint8_t>(len));
  } else if (len < 65536) {
    out.push_back(0x82);
    out.push_back(static_cast<uint8_t>(len >> 8));
    out.push_back(static_cast<uint8_t>(len));
  } else {
    return Result::FATAL_ERROR_INVALID_ARGS;
  }
  return Success;
}

size_t TlvHeaderLength(size_t len) { return len < 128 ? 2 : len < 256 ? 3 : 4; }

Result PrecertTbs(Input certificate, Der &out) {
  Reader cert;
  Result rv = der::ExpectTagAndGetValueAtEnd(certificate, der::SEQUENCE, cert);
  if (rv != Success) {
    return rv;
  }
  Reader tbs;
  rv = der::ExpectTagAndGetValue(cert, der::SEQUENCE, tbs);
  if (rv != Success) {
    return rv;
  }
  Reader::Mark begin = tbs.GetMark();
  while (!tbs.AtEnd() && !tbs.Peek(kExtensionsTag)) {
    uint8_t tag;
    Input value;
    rv = der::ReadTagAndGetValue(tbs, tag, value);
    if (rv != Success) {
      return rv;
    }
  }
  Input before_extensions;
  rv = tbs.GetInput(begin, before_extensions);
  if (rv != Success) {
    return rv;
  }
  std::vector<Input> kept;
  if (tbs.Peek(kExtensionsTag)) {
    Reader context;
    rv = der::ExpectTagAndGetValueAtEnd(tbs, kExtensionsTag, context);
    if (rv != Success) {
      return rv;
    }
    Reader extensions;
    rv = der::ExpectTagAndGetValueAtEnd(context, der::SEQUENCE, extensions);
    if (rv != Success) {
      return rv;
    }
    while (!extensions.AtEnd()) {
      Reader::Mark extension_begin = extensions.GetMark();
      Reader extension;
      rv = der::ExpectTagAndGetValue(extensions, der::SEQUENCE, extension);
      if (rv != Success) {
        return rv;
      }
      Reader oid;
      rv = der::ExpectTagAndGetValue(extension, der::OIDTag, oid);
      if (rv != Success) {
        return rv;
      }
      if (!oid.MatchRest(kEmbeddedSctListOid)) {
        Input tlv;
        rv = extensions.GetInput(extension_begin, tlv);
        if (rv != Success) {
          return rv;
        }
        kept.push_back(tlv);
      }
    }
  }
  out.clear();
  out.reserve(certificate.GetLength());
  if (kept.empty()) {
    rv = WriteTlvHeader(out, der::SEQUENCE, before_extensions.GetLength());
    if (rv != Success) {
      return rv;
    }
    out.insert(out.end(), before_extensions.UnsafeGetData(),
               before_extensions.UnsafeGetData() + before_extensions.GetLength());
    return Success;
  }
  size_t extensions_len = 0;
  for (Input tlv : kept) {
    extensions_len += tlv.GetLength();
  }
  size_t context_len = TlvHeaderLength(extensions_len) + extensions_len;
  size_t tbs_len = before_extensions.GetLength() + TlvHeaderLength(context_len) + context_len;
  rv = WriteTlvHeader(out, der::SEQUENCE, tbs_len);
  if (rv != Success) {
    return rv;
  }
  out.insert(out.end(), before_extensions.UnsafeGetData(),
             before_extensions.UnsafeGetData() + before_extensions.GetLength());
  rv = WriteTlvHeader(out, kExtensionsTag, context_len);
  if (rv == Success) {
    rv = WriteTlvHeader(out, der::SEQUENCE, extensions_len);
  }
  if (rv != Success) {
    return rv;
  }
  for (Input tlv : kept) {
    out.insert(out.end(), tlv.UnsafeGetData(), tlv.UnsafeGetData() + tlv.GetLength());
  }
  return Success;
}

// CTSerialization.cpp's EncodeLogEntry: the entry type (2 bytes), then the certificate
// (3-byte length), or the issuer key hash and the TBSCertificate (3-byte length).
Result EncodeLogEntry(const LogEntry &entry, Der &out) {
  out.clear();
  WriteUint(out, 2, entry.precert ? 1 : 0);
  if (entry.precert) {
    out.insert(out.end(), entry.issuer_key_hash.begin(), entry.issuer_key_hash.end());
    return WriteVariableBytes(out, 3, entry.tbs.data(), entry.tbs.size());
  }
  return WriteVariableBytes(out, 3, entry.leaf.UnsafeGetData(), entry.leaf.GetLength());
}

// CTSerialization.cpp's EncodeV1SCTSignedData: what the log signed: version v1, signature type
// certificate_timestamp, the timestamp, the encoded entry, the extensions (2-byte length).
Result EncodeV1SctSignedData(uint64_t timestamp, const Der &entry, Input extensions, Der &out) {
  out.clear();
  out.reserve(entry.size() + 16 + extensions.GetLength());
  WriteUint(out, 1, 0);  // Version::V1
  WriteUint(out, 1, 0);  // SignatureType::CertificateTimestamp
  WriteUint(out, 8, timestamp);
  out.insert(out.end(), entry.begin(), entry.end());
  return WriteVariableBytes(out, 2, extensions.UnsafeGetData(), extensions.GetLength());
}

}  // namespace certbench_firefox
