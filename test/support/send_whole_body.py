"""Sends a multipart upload the way Python's http.client does: the whole body first, then reads the answer.

Usage: send_whole_body.py URL BODY_BYTES HEADERS_JSON. Prints {"status", "body"} or {"error"} as JSON.
"""
import http.client
import json
import os
import sys
import urllib.parse

url, size, headers = urllib.parse.urlsplit(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
boundary = 'presqt-test-boundary'
body = (
    f'--{boundary}\r\nContent-Disposition: form-data; name="presqt-file"; filename="bag.zip"\r\n'
    'Content-Type: application/zip\r\n\r\n'
).encode() + os.urandom(size) + f'\r\n--{boundary}--\r\n'.encode()
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
try:
    connection.request(
        'POST', url.path, body=body,
        headers={'Content-Type': f'multipart/form-data; boundary={boundary}', **headers},
    )
    answer = connection.getresponse()
    print(json.dumps({'status': answer.status, 'body': answer.read().decode()}))
except OSError as error:
    print(json.dumps({'error': f'{type(error).__name__}: {error}'}))
