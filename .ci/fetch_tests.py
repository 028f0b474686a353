"""Fetch a library's tests that no package on PyPI ships, or say why not (exit 77).

    python .ci/fetch_tests.py NAME URL TARGET ENV_VAR [--members PART]

URL is read (30 s timeout). A ``.tar.gz`` is unpacked into the folder
TARGET, keeping only the files whose path contains PART (``/tests/``);
anything else is written to the file TARGET. When URL cannot be read from
this machine, one line says so, naming ENV_VAR (where a copy can be given
instead), and the exit status is 77: the caller reports the suite as NOT
RUN, which does not fail CI.
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
import urllib.request

OUT_OF_REACH = 77


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name")
    parser.add_argument("url")
    parser.add_argument("target")
    parser.add_argument("env_var")
    parser.add_argument("--members", help="keep only the archive's files whose path has this")
    args = parser.parse_args(argv)
    try:
        with urllib.request.urlopen(args.url, timeout=30) as response:
            data = response.read()
    except OSError as exc:
        print(
            "%s: NOT RUN: its tests are in no package on PyPI, and %s cannot be read from "
            "here (%s). Set %s to a copy of them to run them."
            % (args.name, args.url, exc, args.env_var)
        )
        return OUT_OF_REACH
    if not args.url.endswith(".tar.gz"):
        with open(args.target, "wb") as target:
            target.write(data)
        return 0
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        members = [
            m for m in archive.getmembers() if m.isfile() and (args.members or "") in m.name
        ]
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(args.target, members=members, **safe)
    return 0


if __name__ == "__main__":
    sys.exit(main())
