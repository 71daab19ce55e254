#!/bin/sh
# The fixed P-256 chain the icount TLS scenarios use (regenerate with `sh make.sh`): fixed
# keys and signatures make the client's verification cost the same in every process, so
# counts repeat (a fresh chain per process moved rustls-aws-lc-rs's handshake count by 0.15 %).
set -e
cd "$(dirname "$0")"
openssl ecparam -name prime256v1 -genkey -noout -out ca.key.pem
openssl req -x509 -new -key ca.key.pem -sha256 -days 10950 -subj "/CN=certbench icount CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -set_serial 1 -out ca.pem
openssl ecparam -name prime256v1 -genkey -noout -out leaf.key.pem
openssl req -new -key leaf.key.pem -subj "/CN=handshake.certbench.test" -out leaf.csr
printf 'subjectAltName=DNS:handshake.certbench.test\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key.pem -set_serial 2 -days 10900 -sha256 \
  -extfile leaf.ext -out leaf.pem
openssl x509 -in ca.pem -outform DER -out ca.der
openssl x509 -in leaf.pem -outform DER -out leaf.der
openssl pkcs8 -topk8 -nocrypt -in leaf.key.pem -outform DER -out leaf.key.der
rm -f leaf.csr leaf.ext ca.key.pem leaf.key.pem ca.pem leaf.pem
