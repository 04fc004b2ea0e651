"""The tally of the command-line checks (pscr_solve_check, pscr_hdr_check,
cli_check, the image clients' checks): check() records one result, finish()
prints 'N passed, M failed' and exits with 1 if any failed; write_png() and
png_size() for the image clients."""
import struct
import sys
import zlib

passed = 0
failures = 0


def check(name, ok, detail="", show_pass=False):
    global passed, failures
    if ok:
        passed += 1
        if show_pass:
            print(f"ok   {name}")
    else:
        failures += 1
        print(f"FAIL {name}: {detail}")


def finish():
    print(f"{passed} passed, {failures} failed")
    sys.exit(1 if failures else 0)


def write_png(path, w, h, rows, colour):
    """8-bit grey (colour False) or RGB rows of bytes."""
    raw = b"".join(b"\x00" + bytes(row) for row in rows)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2 if colour else 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def png_size(path):
    """(width, height) of a PNG file, None for anything else."""
    with open(path, "rb") as f:
        head = f.read(26)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None
