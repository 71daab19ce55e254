/*
 * What both browsers' EV tables share (core/native/{chrome,firefox}/ev_roots.inc): a row's
 * shape, and turning its text into bytes, once per process, before anything is timed (each
 * shim's Init builds its table). Header-only, included by both shims inside their anonymous
 * namespace, so each shared object keeps its own hidden copy.
 */
#ifndef CERTBENCH_EV_TABLE_H
#define CERTBENCH_EV_TABLE_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

/* A root's SHA-256 fingerprint. */
using Sha256 = std::array<uint8_t, 32>;

/* One row of an ev_roots.inc: a root, by the SHA-256 of its DER, and one EV policy OID. */
struct EvEntry {
  const char *sha256_hex;
  const char *policy_oid;
};

/* A dotted OID ("2.23.140.1.1") as the contents of its DER encoding; empty if malformed. */
inline std::string OidToDer(std::string_view dotted) {
  std::vector<uint64_t> arcs;
  uint64_t arc = 0;
  bool digit = false;
  for (char c : dotted) {
    if (c >= '0' && c <= '9') {
      arc = arc * 10 + static_cast<uint64_t>(c - '0');
      digit = true;
    } else if (c == '.' && digit) {
      arcs.push_back(arc);
      arc = 0;
      digit = false;
    } else {
      return std::string();
    }
  }
  if (!digit) {
    return std::string();
  }
  arcs.push_back(arc);
  if (arcs.size() < 2 || arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39)) {
    return std::string();
  }
  std::string out;
  auto put = [&out](uint64_t v) {
    char base128[10];
    size_t n = 0;
    do {
      base128[n++] = static_cast<char>(v & 0x7f);
      v >>= 7;
    } while (v != 0);
    while (n > 1) {
      out.push_back(static_cast<char>(base128[--n] | 0x80));
    }
    out.push_back(base128[0]);
  };
  put(arcs[0] * 40 + arcs[1]);
  for (size_t i = 2; i < arcs.size(); i++) {
    put(arcs[i]);
  }
  return out;
}

/* A fingerprint written as 64 hex digits; false if it is not one. */
inline bool HexToSha256(std::string_view hex, Sha256 *out) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() != 2 * out->size()) {
    return false;
  }
  for (size_t i = 0; i < out->size(); i++) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return false;
    }
    (*out)[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

#endif /* CERTBENCH_EV_TABLE_H */
