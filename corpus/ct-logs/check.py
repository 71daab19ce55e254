#!/usr/bin/env python3
"""Check corpus/ct-logs/log_list.json against the corpus.

1. Every log: log_id == base64(SHA-256(DER SubjectPublicKeyInfo in "key")).
2. Every SCT embedded in corpus/real-chains/*/leaf.pem: rebuild the RFC 6962 §3.2
   precertificate signed data and verify the signature with the log's key
   (ECDSA P-256 / SHA-256).  The issuer (for issuer_key_hash) is the first
   certificate in intermediates.pem whose subject equals the leaf's issuer,
   else root.pem.
3. Informational: for logs whose state is `retired` or `rejected`, whether the
   SCT was issued before that state's timestamp (certbench's rule: such SCTs count).

Exit status 0 only if every log_id matches and every SCT (81 expected) verifies.
Needs python3 and the `cryptography` package.  Run from anywhere:
    python3 corpus/ct-logs/check.py
"""
import base64
import datetime
import glob
import hashlib
import json
import os
import struct
import sys

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

HERE = os.path.dirname(os.path.abspath(__file__))
CHAINS = os.path.join(HERE, "..", "real-chains")
EXPECTED_SCTS = 81
EPOCH = datetime.datetime(1970, 1, 1)


def load_pems(path):
    if not os.path.exists(path):
        return []
    return x509.load_pem_x509_certificates(open(path, "rb").read())


def ms(dt):
    """datetime (naive UTC, as cryptography returns) -> integer milliseconds."""
    return (dt.replace(tzinfo=None) - EPOCH) // datetime.timedelta(milliseconds=1)


def parse_ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


def main():
    ok = True
    ll = json.load(open(os.path.join(HERE, "log_list.json")))
    logs = {}
    for op in ll["operators"]:
        for kind in ("logs", "tiled_logs"):
            for log in op.get(kind, []):
                der = base64.b64decode(log["key"])
                want = base64.b64encode(hashlib.sha256(der).digest()).decode()
                if want != log["log_id"]:
                    print(f"LOG_ID MISMATCH {log['description']}: {log['log_id']} != {want}")
                    ok = False
                logs[base64.b64decode(log["log_id"])] = (op["name"], log, serialization.load_der_public_key(der))
    print(f"log list {ll['version']} ({ll['log_list_timestamp']}): {len(logs)} logs, log_id checks {'ok' if ok else 'FAILED'}")

    total = verified = 0
    used = set()
    for leaf_path in sorted(glob.glob(os.path.join(CHAINS, "*", "leaf.pem"))):
        d = os.path.dirname(leaf_path)
        name = os.path.basename(d)
        leaf = x509.load_pem_x509_certificate(open(leaf_path, "rb").read())
        try:
            scts = leaf.extensions.get_extension_for_class(
                x509.PrecertificateSignedCertificateTimestamps).value
        except x509.ExtensionNotFound:
            print(f"{name:45s} no SCTs")
            continue
        issuer = next((c for c in load_pems(os.path.join(d, "intermediates.pem"))
                       if c.subject == leaf.issuer), None)
        if issuer is None:
            issuer = next((c for c in load_pems(os.path.join(d, "root.pem"))
                           if c.subject == leaf.issuer), None)
        if issuer is None:
            print(f"{name:45s} ISSUER NOT FOUND")
            total += len(scts)
            ok = False
            continue
        ikh = hashlib.sha256(issuer.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)).digest()
        tbs = leaf.tbs_precertificate_bytes
        n_ok = 0
        notes = []
        for sct in scts:
            total += 1
            entry = logs.get(sct.log_id)
            lid = base64.b64encode(sct.log_id).decode()
            if entry is None:
                notes.append(f"unknown log {lid}")
                continue
            opname, log, key = entry
            used.add(sct.log_id)
            ts = ms(sct.timestamp)
            ext = sct.extension_bytes
            data = (struct.pack(">BBQH", 0, 0, ts, 1) + ikh
                    + len(tbs).to_bytes(3, "big") + tbs
                    + struct.pack(">H", len(ext)) + ext)
            try:
                if not isinstance(key, ec.EllipticCurvePublicKey):
                    raise InvalidSignature("not an EC key")
                key.verify(sct.signature, data, ec.ECDSA(hashes.SHA256()))
                n_ok += 1
            except InvalidSignature:
                notes.append(f"BAD SIGNATURE {log['description']}")
                continue
            (state, info), = log["state"].items()
            if state in ("retired", "rejected"):
                before = ts < ms(parse_ts(info["timestamp"]))
                notes.append(f"{log['description']} {state} {info['timestamp']}: SCT "
                             f"{sct.timestamp:%Y-%m-%d} {'before -> counts' if before else 'AFTER -> does not count'}")
            elif state not in ("usable", "qualified", "readonly"):
                notes.append(f"{log['description']} state {state}")
        verified += n_ok
        if n_ok != len(scts):
            ok = False
        print(f"{name:45s} SCTs {len(scts)}  verified {n_ok}")
        for n in notes:
            print(f"    {n}")
    unused = [l[1]["description"] for k, l in logs.items() if k not in used]
    if unused:
        print("logs in list not used by the corpus:", ", ".join(unused))
        ok = False
    print(f"TOTAL: {verified}/{total} SCTs verified (expected {EXPECTED_SCTS}); "
          f"{len(used)} distinct logs used")
    if total != EXPECTED_SCTS or verified != total:
        ok = False
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
