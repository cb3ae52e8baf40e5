#!/usr/bin/python3
"""Counts the pixels of given colours in a PNG (8-bit RGB or RGBA, not interlaced: what headless
Chromium's --screenshot writes), with the standard library only.

Usage: png_colours.py FILE RRGGBB... -> one line "RRGGBB COUNT" per colour.
"""
import struct
import sys
import zlib


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    at = 0
    for _ in range(height):
        kind, row = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        # Undo the row's filter (PNG spec, section 9): each byte from its left, upper, upper-left.
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                row[x] = (row[x] + a) & 255
            elif kind == 2:
                row[x] = (row[x] + b) & 255
            elif kind == 3:
                row[x] = (row[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield [bytes(row[x:x + 3]) for x in range(0, stride, bpp)]
        prev = row


def main():
    wanted = {bytes.fromhex(c): c for c in sys.argv[2:]}
    counts = dict.fromkeys(wanted.values(), 0)
    for row in rows(sys.argv[1]):
        for pixel in row:
            if pixel in wanted:
                counts[wanted[pixel]] += 1
    for colour, n in counts.items():
        print(colour, n)


if __name__ == "__main__":
    main()
