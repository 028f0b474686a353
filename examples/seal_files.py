"""seal_files: encrypt a directory with AES-GCM and sign its manifest with ECDSA.

A small, ordinary pycryptodome program; it knows nothing of accel-agent.

    python seal_files.py keygen KEYS            data key + ECDSA P-256 key pair
    python seal_files.py seal SRC OUT --keys KEYS
    python seal_files.py open OUT DEST --keys KEYS

``seal`` writes, for every file under SRC, ``OUT/<path>.enc`` holding
nonce (12 bytes) || AES-256-GCM ciphertext || tag (16 bytes), with the
file's relative path as associated data (a file renamed inside OUT fails to
open). ``OUT/MANIFEST.json`` lists each path, its size and the SHA-256 of
its plaintext; ``OUT/MANIFEST.sig`` is an ECDSA P-256 signature (FIPS 186-3,
SHA-256) of the manifest's bytes.

``open`` verifies the signature with the public key alone, then decrypts
every file listed and checks its size and SHA-256; it refuses (exit 1,
writing nothing further) at the first mismatch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from Crypto.Cipher import AES
from Crypto.Hash import SHA256
from Crypto.PublicKey import ECC
from Crypto.Random import get_random_bytes
from Crypto.Signature import DSS

DATA_KEY = "data.key"
SIGNING_KEY = "signing.pem"
VERIFYING_KEY = "signing.pub.pem"
MANIFEST = "MANIFEST.json"
SIGNATURE = "MANIFEST.sig"
NONCE_SIZE = 12
TAG_SIZE = 16


class SealError(Exception):
    """A sealed directory that does not open: bad signature, tag or content."""


def keygen(key_dir: str) -> None:
    os.makedirs(key_dir, exist_ok=True)
    with open(os.path.join(key_dir, DATA_KEY), "wb") as handle:
        handle.write(get_random_bytes(32))
    signing_key = ECC.generate(curve="P-256")
    with open(os.path.join(key_dir, SIGNING_KEY), "w") as handle:
        handle.write(signing_key.export_key(format="PEM"))
    with open(os.path.join(key_dir, VERIFYING_KEY), "w") as handle:
        handle.write(signing_key.public_key().export_key(format="PEM"))


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _files_under(root: str) -> list[str]:
    """Relative paths of every regular file under root, '/'-separated, sorted."""
    found = []
    for directory, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in sorted(names):
            full = os.path.join(directory, name)
            if os.path.isfile(full):
                found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return found


def seal(source: str, out: str, key_dir: str) -> dict:
    data_key = _read(os.path.join(key_dir, DATA_KEY))
    signing_key = ECC.import_key(_read(os.path.join(key_dir, SIGNING_KEY)))
    entries = []
    total = 0
    for relative in _files_under(source):
        plaintext = _read(os.path.join(source, relative))
        nonce = get_random_bytes(NONCE_SIZE)
        cipher = AES.new(data_key, AES.MODE_GCM, nonce=nonce, mac_len=TAG_SIZE)
        cipher.update(relative.encode("utf-8"))
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        target = os.path.join(out, relative + ".enc")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(nonce + ciphertext + tag)
        entries.append(
            {
                "path": relative,
                "size": len(plaintext),
                "sha256": SHA256.new(plaintext).hexdigest(),
            }
        )
        total += len(plaintext)
    manifest = json.dumps({"version": 1, "files": entries}, indent=1, sort_keys=True).encode()
    signature = DSS.new(signing_key, "fips-186-3").sign(SHA256.new(manifest))
    with open(os.path.join(out, MANIFEST), "wb") as handle:
        handle.write(manifest)
    with open(os.path.join(out, SIGNATURE), "wb") as handle:
        handle.write(signature)
    return {"files": len(entries), "bytes": total}


def open_sealed(sealed: str, dest: str, key_dir: str) -> dict:
    data_key = _read(os.path.join(key_dir, DATA_KEY))
    verifying_key = ECC.import_key(_read(os.path.join(key_dir, VERIFYING_KEY)))
    manifest = _read(os.path.join(sealed, MANIFEST))
    try:
        DSS.new(verifying_key, "fips-186-3").verify(
            SHA256.new(manifest), _read(os.path.join(sealed, SIGNATURE))
        )
    except ValueError:
        raise SealError("%s: the manifest's signature is not valid" % sealed) from None
    total = 0
    entries = json.loads(manifest)["files"]
    for entry in entries:
        relative = entry["path"]
        blob = _read(os.path.join(sealed, relative + ".enc"))
        nonce, ciphertext, tag = blob[:NONCE_SIZE], blob[NONCE_SIZE:-TAG_SIZE], blob[-TAG_SIZE:]
        cipher = AES.new(data_key, AES.MODE_GCM, nonce=nonce, mac_len=TAG_SIZE)
        cipher.update(relative.encode("utf-8"))
        try:
            plaintext = cipher.decrypt_and_verify(ciphertext, tag)
        except ValueError as exc:  # pycryptodome: "MAC check failed"
            raise SealError("%s: %s" % (relative, exc)) from None
        if len(plaintext) != entry["size"] or SHA256.new(plaintext).hexdigest() != entry["sha256"]:
            raise SealError("%s: content does not match the manifest" % relative)
        target = os.path.join(dest, relative)
        os.makedirs(os.path.dirname(target) or dest, exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(plaintext)
        total += len(plaintext)
    return {"files": len(entries), "bytes": total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="seal_files", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("keygen").add_argument("keys")
    for name, first, second in (("seal", "source", "out"), ("open", "sealed", "dest")):
        sub = commands.add_parser(name)
        sub.add_argument(first)
        sub.add_argument(second)
        sub.add_argument("--keys", required=True)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    if args.command == "keygen":
        keygen(args.keys)
        print("seal_files: keys written to %s" % args.keys)
        return 0
    try:
        if args.command == "seal":
            done = seal(args.source, args.out, args.keys)
        else:
            done = open_sealed(args.sealed, args.dest, args.keys)
    except SealError as exc:
        print("seal_files: refused: %s" % exc, file=sys.stderr)
        return 1
    print(
        "seal_files: %s %d files (%.1f MiB) in %.3f s"
        % (
            "sealed" if args.command == "seal" else "opened",
            done["files"],
            done["bytes"] / 2**20,
            time.perf_counter() - started,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
