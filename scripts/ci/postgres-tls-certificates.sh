#!/usr/bin/env bash
# Makes the certificates a throwaway PostgreSQL cluster serves TLS with, for the TLS tests:
#   DIR/ca.crt          a self-signed CA (what sslrootcert names)
#   DIR/server.crt/key  the server's certificate, signed by it, for localhost and 127.0.0.1
#   DIR/other-ca.crt    another CA, which did not sign the server's (verify-full must refuse it)
# Usage: postgres-tls-certificates.sh DIR
set -euo pipefail
dir="$1"
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=platformd test CA" \
    -keyout ca.key -out ca.crt >/dev/null 2>&1
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=another CA" \
    -keyout other-ca.key -out other-ca.crt >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr >/dev/null 2>&1
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile server.ext -out server.crt >/dev/null 2>&1
chmod 600 server.key
