#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes a throw-away PKI for the TLS tests in the directory $1: a test CA
# (ca.pem), a server certificate for 127.0.0.1 and localhost (server.pem,
# server.key), one for another host name (wrong_host.pem/.key), a client
# certificate for mutual TLS (client.pem/.key), a second server certificate
# for 127.0.0.1 (renewed.pem/.key, as after a renewal), all signed by the CA,
# and a second CA (other_ca.pem) that signed only a server certificate for
# 127.0.0.1 (other_server.pem/.key). EC P-256 keys, valid 2 days.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"

ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$1.key" -out "$1.pem" -days 2 -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    2>/dev/null
}

leaf() {  # name, subjectAltName, extendedKeyUsage[, issuing CA (default ca)]
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$1.key" -out "$1.csr" -subj "/CN=stallwatch test $1" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=%s\n' "$2" "$3" > "$1.ext"
  local issuer=${4:-ca}
  openssl x509 -req -in "$1.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -CAcreateserial -out "$1.pem" \
    -days 2 -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca "stallwatch test CA"
ca other_ca "stallwatch other test CA"
leaf server "IP:127.0.0.1,DNS:localhost" serverAuth
leaf wrong_host "DNS:wrong.example" serverAuth
leaf client "DNS:stallwatch-client" clientAuth
leaf renewed "IP:127.0.0.1,DNS:localhost" serverAuth
leaf other_server "IP:127.0.0.1,DNS:localhost" serverAuth other_ca
