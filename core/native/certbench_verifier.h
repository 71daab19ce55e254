/*
 * The C ABI of certbench's native verifiers: a browser's own certificate verifier (Chrome's
 * BoringSSL libpki, Firefox's mozilla::pkix), built by core/build.rs into a shared object that
 * exports exactly one symbol, `certbench_verifier_v4_table`, and hides every other one (so that, say,
 * BoringSSL's libcrypto loads beside the system OpenSSL without a clash). certbench loads it
 * with dlopen(RTLD_NOW | RTLD_LOCAL) and calls it only through the table below
 * (core/src/ffi/native.rs).
 *
 * Contract, for every function of the table:
 *  - nothing is thrown across it: every C++ exception is caught inside and is a failure;
 *  - a failure or a refusal writes a NUL-terminated reason (truncated to `cap` bytes, `cap` > 0)
 *    into `reason`, and the function returns NULL / 0; it never aborts the process;
 *  - `verify`, `verify_ct` and `check_name` return 1 only when the library itself accepted
 *    (for `verify_ct`: the browser's CT policy was met); every other
 *    outcome (including an internal error) is 0, a rejection (fail closed); `verify_ev`
 *    returns CERTBENCH_EV_GRANTED only when the library found an EV path, never on an error;
 *  - nothing is rendered into text inside `verify`, `verify_ev` or `verify_ct` (timed spans): a rejection's
 *    reason is kept in the chain and written by `explain`, which certbench calls untimed;
 *  - a store is never changed after `store_new` returns: `verify` may be called on one store
 *    from several threads at once; a chain is used by one thread at a time; a CT log set is
 *    shared like a store (its signature cache, when it keeps one, is internally locked);
 *  - DER inputs are borrowed for the duration of the call only (copy what you keep).
 */
#ifndef CERTBENCH_VERIFIER_H
#define CERTBENCH_VERIFIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One DER certificate, borrowed. */
typedef struct certbench_der {
  const uint8_t *der;
  size_t len;
} certbench_der;

/* The kind of name `check_name` checks. */
enum certbench_name_kind {
  CERTBENCH_NAME_DNS = 0, /* `name` is an ASCII DNS name, `len` bytes, no NUL required */
  CERTBENCH_NAME_IP = 1,  /* `name` is an IPv4 (4 bytes) or IPv6 (16 bytes) address */
};

#define CERTBENCH_VERIFIER_ABI 5

/* What `verify_ev` found. */
enum certbench_ev {
  /* The end-entity certificate asserts no policy of the browser's EV table: nothing tried. */
  CERTBENCH_EV_NOT_CANDIDATE = -1,
  /* An EV candidate without an EV path (a root the table does not list for the policy, a
   * failed build, an internal error): the browser falls back to its DV attempt (`verify`). */
  CERTBENCH_EV_FALLBACK = 0,
  /* An EV path was found: the chain is accepted as EV, and no DV attempt follows. */
  CERTBENCH_EV_GRANTED = 1,
};


/* A CT log's standing in the browser's log list, as both browsers reduce it
 * (Chromium: the list's qualified/usable/readonly logs vs its disqualified ones; Gecko:
 * CTLogState Admissible vs Retired). */
enum certbench_ct_log_state {
  /* Qualified, usable or read-only: its SCTs count. */
  CERTBENCH_CT_LOG_ADMISSIBLE = 0,
  /* Retired (disqualified) at `retired_at`: only its SCTs timestamped before that count. */
  CERTBENCH_CT_LOG_RETIRED = 1,
};

/* One CT log the browser knows, borrowed for `ct_logs_new` (copy what you keep). A log not in
 * the set is an unknown log, treated as the browser treats one. */
typedef struct certbench_ct_log {
  const uint8_t *log_id;       /* 32 bytes: SHA-256 of `key` (RFC 6962 §3.2 LogID) */
  const uint8_t *key;          /* the log's public key, DER SubjectPublicKeyInfo */
  size_t key_len;
  const char *operator_name;   /* NUL-terminated; logs of one operator share it */
  const char *description;     /* NUL-terminated, e.g. "Google 'Argon2026h1' log" */
  int state;                   /* enum certbench_ct_log_state */
  int64_t retired_at;          /* seconds since the Unix epoch; for RETIRED only */
} certbench_ct_log;

/* What `verify_ct` found, counted over every SCT it was given (embedded and from TLS). */
typedef struct certbench_ct_counts {
  uint32_t scts;        /* SCTs found */
  uint32_t checked;     /* signatures verified by this call (a cache hit is not counted) */
  uint32_t valid;       /* from a known log, its signature good */
  uint32_t unknown_log; /* from a log not in the set */
  uint32_t invalid;     /* a bad signature, or an SCT that does not parse */
} certbench_ct_counts;

/* One SCT `verify_ct` found valid (ABI 5): its log's id and its timestamp. */
typedef struct certbench_verified_sct {
  uint8_t log_id[32];
  uint64_t timestamp; /* milliseconds since the Unix epoch, as the SCT carries it */
} certbench_verified_sct;

typedef struct certbench_verifier_v4 {
  /* CERTBENCH_VERIFIER_ABI. */
  uint32_t abi;
  /* The library that verifies, e.g. "BoringSSL pki", and its version, e.g. "0.20250818.0";
   * static strings. */
  const char *library;
  const char *version;
  /* The verification policy in one line, as samples record it; a static string. */
  const char *policy;

  /* The library's start-up, once per process (NSS_NoDB_Init for mozilla::pkix's NSS; nothing
   * for BoringSSL): certbench calls it before the first `store_new` and times it as
   * `library-init`, apart from `roots-creation`. Idempotent. 1: ready; 0 with a reason. */
  int (*init)(char *reason, size_t cap);

  /* Builds a trust store from `n` DER roots (timed by certbench as `roots-creation`). A root
   * the library cannot use is skipped; `*used` (if not NULL) receives how many were kept.
   * NULL with a reason when none is usable or on failure. */
  void *(*store_new)(const certbench_der *roots, size_t n, size_t *used, char *reason,
                     size_t cap);
  void (*store_free)(void *store);

  /* Parses a chain as sent: certs[0] the end-entity certificate, then the other certificates
   * in the order sent (timed as `chain-creation`). NULL with a reason on a malformed
   * certificate. */
  void *(*chain_new)(const certbench_der *certs, size_t n, char *reason, size_t cap);
  void (*chain_free)(void *chain);

  /* The browser's EV attempt (timed as `ev-attempt`): whether the end-entity certificate
   * asserts a policy the browser's EV table lists and, if so, a path built as the browser
   * builds an EV path, to a root the table lists for that policy (see `enum certbench_ev`).
   * certbench calls `verify` after it unless it returned CERTBENCH_EV_GRANTED. */
  int (*verify_ev)(const void *store, void *chain, int64_t time);

  /* Builds and verifies a path from the chain's end-entity certificate to an anchor of `store`
   * at `time` (seconds since the Unix epoch) for TLS server authentication, as the browser's
   * DV attempt does, without checking any name (timed as `verify`). 1: accepted; 0: rejected,
   * the reason kept in `chain` for `explain`. */
  int (*verify)(const void *store, void *chain, int64_t time);

  /* Writes the reason of the chain's last rejection by `verify` (rendered now, untimed). */
  void (*explain)(void *chain, char *reason, size_t cap);

  /* Checks the end-entity certificate for `name` as the browser does (timed as
   * `verify-hostname`). 1: the name matches; 0: it does not, or it cannot be checked, with
   * the reason. */
  int (*check_name)(void *chain, int kind, const uint8_t *name, size_t len, char *reason,
                    size_t cap);

  /* The CT logs the browser knows: `n` logs, parsed and their keys imported once, as the
   * browser does when it loads its log list (certbench builds it before any timed stage).
   * With `cache_signatures` 1 the set keeps the browser's cache of SCT signature results
   * across chains, where the browser keeps one (Firefox); 0: none, every check is cold. A log
   * whose key the library cannot use is skipped (its SCTs are then from an unknown log).
   * NULL with a reason on failure. */
  void *(*ct_logs_new)(const certbench_ct_log *logs, size_t n, int cache_signatures,
                       char *reason, size_t cap);
  void (*ct_logs_free)(void *logs);

  /* The browser's Certificate Transparency check of the path the last `verify_ev` or `verify`
   * accepted for `chain` (certbench calls it only then; otherwise 0), timed as `ct`: the SCT
   * list embedded in the end-entity certificate and `tls_scts` (the TLS extension's
   * SignedCertificateTimestampList as received, or NULL), each SCT's signature checked against
   * its log's key over the entry the browser rebuilds (the precertificate entry with the
   * path's issuer key hash for an embedded SCT, the X.509 entry for one from TLS), then the
   * browser's CT policy at `time` for the end-entity certificate. 1: the policy is met; 0: it
   * is not, or the check failed, the reason kept in `chain` for `explain`. `*out` receives the
   * counts in both cases. */
  int (*verify_ct)(const void *logs, void *chain, const uint8_t *tls_scts, size_t tls_len,
                   int64_t time, certbench_ct_counts *out);

  /* (ABI 4) The path the last `verify_ev` or `verify` on `chain` built and accepted, as the
   * browser hands it to its revocation check (Chrome: the CertPathBuilder result's best valid
   * path, `certs`; Firefox: the chain mozilla::pkix passed to the trust domain's IsChainValid,
   * reversed): end-entity certificate first, each certificate issued by the next, the trust
   * anchor's certificate last (a path of one certificate is an end entity that is itself an
   * anchor). It builds and renders nothing: it copies n pointers.
   *  - no accepted path (no verify yet, or the last `verify`/`verify_ev` rejected, fell back
   *    or failed): returns -1 and writes nothing;
   *  - otherwise returns n, the path's length (n >= 1), and writes out[0..n) only when
   *    n <= cap (writes nothing when n > cap: the caller retries with cap >= n, as with
   *    snprintf); `out` may be NULL when cap is 0.
   * Each `der` written stays valid, unchanged, until `chain_free(chain)`, whatever is called on
   * the chain meanwhile and whether or not its store is freed (the shim keeps, or copies into
   * the chain, every certificate a path it returned holds). Never throws, never fails
   * otherwise. */
  int (*verified_path)(void *chain, certbench_der *out, size_t cap);
  /* (ABI 5) The SCTs the last `verify_ct` on `chain` found valid (from a log of the set, its
   * signature good, not from the future), in the order checked: what Gecko's CTVerifyResult
   * hands its CRLite query (NSSCertDBTrustDomain::CheckRevocationByCRLite), so that CRLite
   * counts only verified timestamps. It builds and renders nothing.
   *  - no `verify_ct` since the last `verify`/`verify_ev`, or a library that keeps no such
   *    list (Chrome's: its CRLSet reads no SCT): returns -1 and writes nothing;
   *  - otherwise returns n >= 0 and writes out[0..n) only when n <= cap (nothing when
   *    n > cap: the caller retries with cap >= n). */
  int (*verified_scts)(void *chain, certbench_verified_sct *out, size_t cap);
} certbench_verifier_v4;

/* The one exported symbol: the verifier's table (a static object, never freed). */
const certbench_verifier_v4 *certbench_verifier_v4_table(void);

#ifdef __cplusplus
}
#endif

#endif /* CERTBENCH_VERIFIER_H */
