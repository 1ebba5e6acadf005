"""Reading a photo file: JPEG, PNG or WebP → BGR pixels, EXIF orientation applied, huge photos scaled down.

Everything a user can get wrong with a file is refused with a one-line `FanscanError` before it costs memory:
missing or empty file, not an image (the first bytes are checked, not the name), a format we do not read,
dimensions that are zero, too small to show a tile, or absurd (a decompression bomb: the size is read from the
header — PNG IHDR, JPEG SOF, WebP VP8 / VP8L / VP8X — and refused above `MAX_PIXELS` before any decoding),
and a truncated file (a JPEG without its end marker, a PNG without IEND, a WebP shorter than its RIFF size).

EXIF orientation is read here from the file's own EXIF block (JPEG APP1, PNG eXIf, WebP EXIF) and applied after
decoding with orientation handling switched off in OpenCV, so the result does not depend on which formats a given
OpenCV build rotates (OpenCV's IMREAD_COLOR rotates JPEGs itself; tests check that both agree).

Photos larger than `WORKING_MAX_SIDE` on their long side are scaled down (JPEGs partly while decoding, with
libjpeg's DCT scaling, which is faster than decoding all pixels); `LoadedImage.scale` maps working pixels back
to the file's pixels: original = working / scale.

`coarse_first` decodes a big JPEG coarser still (long side at least `COARSE_MIN_SIDE`: a quarter of the pixels of
the working size, or less, in a third of the time) and leaves `LoadedImage.finer` to decode it at the working size
when the pipeline needs it: the detector reads a 640-px input either way, and the tiles of a phone photo of one
hand are large enough at the coarse size for their crops (see `vision.pipeline`).

The header readers below are hand-written on purpose: they read only the first bytes (the size must be checked
before any pixel is decoded, and OpenCV has no header-only call), they let the decode itself use libjpeg's scaled
decoding, and they spare a second image library (Pillow) beside OpenCV for a few dozen lines; tests/test_load.py
covers the damaged, truncated, oversized and rotated cases.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError

# Refuse above this many pixels (from the header, before decoding): 100 MP is beyond any phone's main camera
# in ordinary mode; a 20000 x 20000 image (400 MP, 1.2 GB as BGR) is refused without being decoded.
MAX_PIXELS = 100_000_000
MAX_FILE_BYTES = 200 * 1024 * 1024
MIN_SIDE = 16  # below this no tile can be made out (a 1 x 1 PNG is a mistake, not a photo)
WORKING_MAX_SIDE = 2048  # ample for the detector (384 px) and for crops of tiles taking 1/40 of the photo
COARSE_MIN_SIDE = 800  # a coarse first decode keeps at least this long side: more than the detector's 640-px input


# HEIC / HEIF / AVIF (a phone's photo): an ISO box `ftyp` and its brand.
HEIF_BRANDS = tuple(b"ftyp" + brand for brand in (b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"avif"))


@dataclass(frozen=True)
class LoadedImage:
    """A decoded photo. `image` is BGR uint8 at working size; `original_size` is (width, height) of the file
    after EXIF orientation; `scale` = working / original (1.0 when not scaled down)."""

    image: np.ndarray
    original_size: tuple[int, int]
    scale: float
    path: Path
    format: str
    orientation: int = 1
    # A coarse first decode (`coarse_first`): decodes the file again at the working size. None otherwise.
    finer: Callable[[], LoadedImage] | None = field(default=None, compare=False, repr=False)

    def to_original(self, points: np.ndarray) -> np.ndarray:
        """Working-image coordinates → original-image coordinates."""
        return np.asarray(points, np.float64) / self.scale


@dataclass(frozen=True)
class Header:
    format: str  # 'jpeg' | 'png' | 'webp'
    width: int
    height: int
    orientation: int  # EXIF orientation 1..8 (1 = as stored)


def load_image(path: str | Path, max_side: int = WORKING_MAX_SIDE, coarse_first: bool = False) -> LoadedImage:
    """Decode a photo file (see the module doc for what is refused and why, and for `coarse_first`)."""
    path = Path(path)
    return decode_image(read_image_file(path), path, max_side, coarse_first)


def read_image_file(path: Path, where: str | None = None) -> bytes:
    """The bytes of a photo file, after the checks that need no decoding (exists, is a file, not empty, not huge)."""
    where = where or str(path)
    if not path.exists():
        raise FanscanError(f"{where}: no such file")
    if not path.is_file():
        raise FanscanError(f"{where}: not a file")
    size = path.stat().st_size
    if size == 0:
        raise FanscanError(f"{where}: the file is empty")
    if size > MAX_FILE_BYTES:
        raise FanscanError(f"{where}: the file is {size / 2**20:.0f} MB; photos over {MAX_FILE_BYTES // 2**20} MB "
                           "are refused")
    try:
        return path.read_bytes()
    except OSError as error:
        raise FanscanError(f"{where}: cannot read ({error.strerror})") from None


def decode_image(data: bytes, path: Path, max_side: int = WORKING_MAX_SIDE,
                 coarse_first: bool = False) -> LoadedImage:
    """A photo's bytes (as `read_image_file` returns them; `path` names it in errors) → `LoadedImage`."""
    where = str(path)
    if not data:
        raise FanscanError(f"{where}: the file is empty")
    header = read_header(data, where)
    check_dimensions(header, where)
    check_complete(data, header, where)
    reduce = _jpeg_reduction(header, 0.8 * max_side)
    coarse = _jpeg_reduction(header, COARSE_MIN_SIDE) if coarse_first else reduce
    if coarse > reduce:
        # Cached: the pipeline and an annotated copy both ask for the working size, which is decoded once.
        return replace(_decoded(data, header, where, coarse, max_side, path),
                       finer=functools.cache(functools.partial(decode_image, data, path, max_side)))
    return _decoded(data, header, where, reduce, max_side, path)


def _decoded(data: bytes, header: Header, where: str, reduce: int, max_side: int, path: Path) -> LoadedImage:
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    if reduce > 1:
        flags = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                 8: cv2.IMREAD_REDUCED_COLOR_8}[reduce] | cv2.IMREAD_IGNORE_ORIENTATION
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if image is None or image.size == 0:
        raise FanscanError(f"{where}: the {header.format.upper()} data could not be decoded (corrupt file?)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    image = apply_orientation(image, header.orientation)
    # The file's size after orientation: quarter turns swap width and height.
    width, height = (header.height, header.width) if header.orientation >= 5 else (header.width, header.height)
    long_side = max(image.shape[:2])
    if long_side > max_side:
        factor = max_side / long_side
        new_size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
        image = cv2.resize(image, new_size, interpolation=cv2.INTER_AREA)
    scale = image.shape[1] / width
    return LoadedImage(np.ascontiguousarray(image), (width, height), scale, path, header.format, header.orientation)


def decoded_pixels(header: Header, max_side: int = WORKING_MAX_SIDE) -> int:
    """How many pixels decoding the photo of `header` at the working size holds at once: a JPEG is decoded by
    libjpeg already reduced, a PNG or WebP whole before it is scaled down."""
    reduce = _jpeg_reduction(header, 0.8 * max_side)
    return -(-header.width // reduce) * -(-header.height // reduce)


def _jpeg_reduction(header: Header, min_long_side: float) -> int:
    """The largest libjpeg scale-down (2, 4, 8) that still leaves at least `min_long_side` on the long side."""
    if header.format != "jpeg":
        return 1
    long_side = max(header.width, header.height)
    for factor in (8, 4, 2):
        if long_side / factor >= min_long_side:
            return factor
    return 1


def check_dimensions(header: Header, where: str) -> None:
    w, h = header.width, header.height
    if w <= 0 or h <= 0:
        raise FanscanError(f"{where}: the {header.format.upper()} header says the image is {w} x {h} pixels (empty)")
    if w * h > MAX_PIXELS:
        raise FanscanError(f"{where}: {w} x {h} pixels ({w * h / 1e6:.0f} MP) is more than the "
                           f"{MAX_PIXELS / 1e6:.0f} MP limit; scale the photo down first")
    if min(w, h) < MIN_SIDE:
        raise FanscanError(f"{where}: {w} x {h} pixels is too small to show tiles (under {MIN_SIDE} px)")


def read_header(data: bytes, where: str) -> Header:
    """Format, dimensions and EXIF orientation from the first bytes, without decoding pixels."""
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_header(data, where)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png_header(data, where)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_header(data, where)
    if data[:2] == b"BM" or data[:4] in (b"GIF8", b"II*\x00", b"MM\x00*") or data[4:12] in HEIF_BRANDS:
        raise FanscanError(f"{where}: this image format is not supported; use JPEG, PNG or WebP")
    raise FanscanError(f"{where}: not an image file (expected JPEG, PNG or WebP)")


# JPEG markers: start of frame (the image size), start of scan (the compressed data follows), APP1 (EXIF), and the
# ones that stand alone without a length.
_JPEG_FRAME = frozenset((0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF))
_JPEG_SCAN = 0xDA
_JPEG_APP1 = 0xE1
_JPEG_NO_LENGTH = frozenset((0x01, *range(0xD0, 0xD8)))


def _jpeg_segments(data: bytes) -> Iterator[tuple[int, int | None, bytes]]:
    """(offset, marker, payload) of each segment after the SOI marker, in file order, up to and including the
    first start of scan. A byte where a marker should be but is not ends the walk as (offset, None, b"")."""
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            yield pos, None, b""
            return
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _JPEG_NO_LENGTH:
            pos += 2
            continue
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        yield pos, marker, data[pos + 4:pos + 2 + length]
        if marker == _JPEG_SCAN:
            return
        pos += 2 + length


def _jpeg_header(data: bytes, where: str) -> Header:
    orientation = 1
    for pos, marker, segment in _jpeg_segments(data):
        if marker is None:
            raise FanscanError(f"{where}: damaged JPEG (bad marker at byte {pos})")
        if marker == _JPEG_APP1 and segment[:6] == b"Exif\x00\x00":
            orientation = _tiff_orientation(segment[6:])
        if marker in _JPEG_FRAME:
            if len(segment) < 5:
                break
            height, width = struct.unpack(">HH", segment[1:5])
            return Header("jpeg", width, height, orientation)
        # A start of scan before any frame header ends the walk without a size.
    raise FanscanError(f"{where}: truncated or damaged JPEG (no frame header with the image size)")


def _png_header(data: bytes, where: str) -> Header:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise FanscanError(f"{where}: truncated or damaged PNG (no IHDR header)")
    width, height = struct.unpack(">II", data[16:24])
    orientation = 1
    pos = 8
    # eXIf must come before the image data; stop at the first IDAT.
    while pos + 8 <= len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"eXIf":
            orientation = _tiff_orientation(data[pos + 8:pos + 8 + length])
        if kind in (b"IDAT", b"IEND"):
            break
        pos += 12 + length
    return Header("png", width, height, orientation)


def _webp_header(data: bytes, where: str) -> Header:
    chunk = data[12:16]
    body = data[20:]
    if chunk == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        width, height = (struct.unpack("<H", body[6:8])[0] & 0x3FFF, struct.unpack("<H", body[8:10])[0] & 0x3FFF)
        return Header("webp", width, height, 1)
    if chunk == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits = int.from_bytes(body[1:5], "little")
        return Header("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, 1)
    if chunk == b"VP8X" and len(body) >= 10:
        width = int.from_bytes(body[4:7], "little") + 1
        height = int.from_bytes(body[7:10], "little") + 1
        return Header("webp", width, height, _webp_orientation(data) if body[0] & 0x08 else 1)
    raise FanscanError(f"{where}: truncated or damaged WebP (no VP8/VP8L/VP8X header with the image size)")


def _webp_orientation(data: bytes) -> int:
    pos = 12
    while pos + 8 <= len(data):
        kind = data[pos:pos + 4]
        length = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if kind == b"EXIF":
            payload = data[pos + 8:pos + 8 + length]
            if payload[:6] == b"Exif\x00\x00":
                payload = payload[6:]
            return _tiff_orientation(payload)
        pos += 8 + length + (length & 1)
    return 1


def _tiff_orientation(tiff: bytes) -> int:
    """The Orientation tag (0x0112) of IFD0 in a TIFF-structured EXIF block; 1 when absent or unreadable."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    endian = "<" if tiff[:2] == b"II" else ">"
    try:
        offset = struct.unpack(endian + "I", tiff[4:8])[0]
        count = struct.unpack(endian + "H", tiff[offset:offset + 2])[0]
        for i in range(count):
            entry = tiff[offset + 2 + 12 * i:offset + 14 + 12 * i]
            tag, kind = struct.unpack(endian + "HH", entry[:4])
            if tag == 0x0112 and kind == 3:
                value = struct.unpack(endian + "H", entry[8:10])[0]
                return value if 1 <= value <= 8 else 1
    except struct.error:
        return 1
    return 1


def apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn / mirror pixels as stored into the way the camera held them (EXIF orientation values 1..8)."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.flip(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), 1)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE), 1)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def check_complete(data: bytes, header: Header, where: str) -> None:
    """Refuse files cut short: decoders fill a truncated JPEG with grey instead of failing."""
    if header.format == "jpeg":
        scan = _jpeg_scan_start(data)
        if scan < 0 or data.rfind(b"\xff\xd9") < scan:
            raise FanscanError(f"{where}: truncated JPEG (the file ends before the image data does)")
    elif header.format == "png":
        if data.rfind(b"IEND") < 0:
            raise FanscanError(f"{where}: truncated PNG (no IEND chunk at the end)")
    elif header.format == "webp":
        declared = struct.unpack("<I", data[4:8])[0] + 8
        if len(data) < declared:
            raise FanscanError(f"{where}: truncated WebP ({len(data)} of {declared} bytes)")


def _jpeg_scan_start(data: bytes) -> int:
    """Byte offset of the first start-of-scan segment, or -1."""
    for pos, marker, _ in _jpeg_segments(data):
        if marker == _JPEG_SCAN:
            return pos
    return -1
