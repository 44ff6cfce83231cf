#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets into fuzz/seeds/ (Python standard library only):
one small valid file per format the tensor readers take, and a model with an external-data
initializer for the loader. The other seeds are read in place by scripts/fuzz.sh (the repository's
models, profiles and test data, and ../shared/onnx-tests).

Usage: python3 scripts/make_fuzz_seeds.py
"""
import io
import os
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "fuzz", "seeds")


def npy(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def npz(entries, method):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in entries:  # a fixed date, so that the seeds are the same on every run
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, method)
    return buf.getvalue()


def png(width, height, rows):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def bmp(width, height, pixel):
    row = pixel * width + b"\x00" * ((4 - 3 * width % 4) % 4)
    data = row * height
    header = struct.pack("<2sIHHI", b"BM", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    return header + info + data


# ONNX protobuf by hand: field numbers from onnx.proto (ModelProto, GraphProto, TensorProto...).
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(number, value):
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def external_data_model():
    def entry(key, value):
        return field(13, field(1, key.encode()) + field(2, value.encode()))
    weight = (field(1, 4) + field(2, 1) + field(8, b"w") + entry("location", "external.bin") +
              entry("offset", "16") + entry("length", "16") + field(14, 1))
    tensor_type = field(1, 1) + field(2, field(1, field(1, 4)))
    x = field(1, b"x") + field(2, field(1, tensor_type))
    node = field(1, b"x") + field(1, b"w") + field(2, b"y") + field(3, b"add") + field(4, b"Add")
    graph = field(1, node) + field(2, b"g") + field(5, weight) + field(11, x) + field(12, field(1, b"y"))
    return field(1, 8) + field(7, graph) + field(8, field(2, 13))


def main():
    files = {
        "tensor_files/f32_2x3.npy": npy("<f4", "(2, 3)", struct.pack("<6f", 0, 1, 2, 3, 4, 5)),
        "tensor_files/i64_scalar.npy": npy("<i8", "()", struct.pack("<q", 7)),
        "tensor_files/bool_4.npy": npy("|b1", "(4,)", b"\x00\x01\x01\x00"),
        "tensor_files/stored.npz": npz([("a.npy", npy("<f4", "(2,)", struct.pack("<2f", 1, 2)))],
                                       zipfile.ZIP_STORED),
        "tensor_files/deflated.npz": npz([("b.npy", npy("<i4", "(3,)", struct.pack("<3i", 1, 2, 3)))],
                                         zipfile.ZIP_DEFLATED),
        "tensor_files/nested.json": b"[[1.5, -2], [3, 4e-3]]",
        "tensor_files/gray.pgm": b"P5\n2 2\n255\n\x00\x40\x80\xff",
        "tensor_files/rgb.ppm": b"P6\n2 1\n255\n\xff\x00\x00\x00\xff\x00",
        "tensor_files/rgb.png": png(2, 2, [b"\xff\x00\x00\x00\xff\x00", b"\x00\x00\xff\xff\xff\xff"]),
        "tensor_files/rgb.bmp": bmp(2, 2, b"\x10\x20\x30"),
        # 8x8 gray baseline JPEG, every pixel 100 (as in tests/io/image_test.cpp)
        "tensor_files/gray.jpg": bytes.fromhex(
            "ffd8ffe000104a46494600010100000100010000ffdb004300030202030202030303030403030405"
            "0805050404050a070706080c0a0c0c0b0a0b0b0d0e12100d0e110e0b0b1016101113141515150c0f"
            "171816141812141514ffc0000b080008000801011100ffc400140001000000000000000000000000"
            "00000007ffc40014100100000000000000000000000000000000ffda0008010100003f00347fffd9"),
        "load_model/external_data.onnx": external_data_model(),
    }
    for name, data in files.items():
        path = os.path.join(SEEDS, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
