#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A local HTTPS server for the TLS tests: records every request it answers.

Serves on 127.0.0.1 (port chosen by the system, written to --port-file once
listening). The certificate and key are read again for every connection, so
a test can "fix" the server by copying another certificate over them. With
--client-ca the server requires a client certificate signed by that CA.

Each request is appended to --log as one JSON line: method, path, headers,
body, and the client certificate's subject CN (or null). GET and POST are
answered with --status and the JSON body {"ok": true, "path": PATH}, except
the requests numbered by --fail-request (1-based, repeatable): 503.
"""

import argparse
import http.server
import json
import os
import ssl
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cert', required=True)
    parser.add_argument('--key', required=True)
    parser.add_argument('--client-ca')
    parser.add_argument('--port-file', required=True)
    parser.add_argument('--log', required=True)
    parser.add_argument('--status', type=int, default=200)
    parser.add_argument('--fail-request', type=int, action='append', default=[])
    args = parser.parse_args()

    def context():
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(args.client_ca)
        return ctx

    answered = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def log_message(self, *_):
            pass

        def answer(self, body):
            peer = self.connection.getpeercert()
            subject = None
            if peer:
                for rdn in peer.get('subject', ()):
                    for name, value in rdn:
                        if name == 'commonName':
                            subject = value
            with open(args.log, 'a', encoding='utf-8') as f:
                f.write(json.dumps({
                    'method': self.command,
                    'path': self.path,
                    'headers': {k.lower(): v for k, v in self.headers.items()},
                    'body': body.decode('utf-8', 'replace'),
                    'client': subject,
                }) + '\n')
            out = json.dumps({'ok': True, 'path': self.path}).encode()
            answered[0] += 1
            failing = answered[0] in args.fail_request
            self.send_response(503 if failing else args.status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(out)))
            self.send_header('Connection', 'close')
            self.end_headers()
            self.wfile.write(out)
            self.close_connection = True

        def do_GET(self):
            self.answer(b'')

        def do_POST(self):
            length = int(self.headers.get('Content-Length') or 0)
            self.answer(self.rfile.read(length))

    class Server(http.server.HTTPServer):
        def get_request(self):
            sock, addr = self.socket.accept()
            sock.settimeout(10)
            try:
                return context().wrap_socket(sock, server_side=True), addr
            except (OSError, ssl.SSLError):
                sock.close()
                raise

        def handle_error(self, request, client_address):
            pass  # a client that refused our certificate, or went away

    server = Server(('127.0.0.1', 0), Handler)
    tmp = args.port_file + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    server.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
