"""vision.load: formats, EXIF orientation, downscaling, and every file a user can get wrong."""

from __future__ import annotations

import struct
import tracemalloc
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.load import MAX_PIXELS, load_image, read_header


def gradient_image(width: int = 120, height: int = 80) -> np.ndarray:
    """An image whose orientation is visible: red grows to the right, green downwards, a blue corner mark."""
    xs = np.linspace(0, 255, width, dtype=np.float32)[None, :]
    ys = np.linspace(0, 255, height, dtype=np.float32)[:, None]
    image = np.zeros((height, width, 3), np.uint8)
    image[..., 2] = np.broadcast_to(xs, (height, width)).astype(np.uint8)
    image[..., 1] = np.broadcast_to(ys, (height, width)).astype(np.uint8)
    image[:10, :10, 0] = 255
    return image


def tiff_orientation_block(orientation: int) -> bytes:
    """A minimal little-endian TIFF block with one IFD0 entry: Orientation (0x0112, SHORT)."""
    entry = struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    return b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + entry + struct.pack("<I", 0)


def jpeg_with_orientation(image: np.ndarray, orientation: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    data = buf.tobytes()
    payload = b"Exif\x00\x00" + tiff_orientation_block(orientation)
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + app1 + data[2:]


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_with_orientation(image: np.ndarray, orientation: int) -> bytes:
    ok, buf = cv2.imencode(".png", image)
    assert ok
    data = buf.tobytes()
    ihdr_end = 8 + 12 + 13
    return data[:ihdr_end] + png_chunk(b"eXIf", tiff_orientation_block(orientation)) + data[ihdr_end:]


def webp_with_orientation(image: np.ndarray, orientation: int) -> bytes:
    """A simple (VP8) WebP turned into the extended layout: VP8X with the EXIF flag, the VP8 chunk, an EXIF chunk."""
    ok, buf = cv2.imencode(".webp", image, [cv2.IMWRITE_WEBP_QUALITY, 95])
    assert ok
    data = buf.tobytes()
    assert data[12:16] in (b"VP8 ", b"VP8L")
    image_chunk = data[12:]
    h, w = image.shape[:2]
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x08, 0, 0, 0]) + (w - 1).to_bytes(3, "little") \
        + (h - 1).to_bytes(3, "little")
    exif = tiff_orientation_block(orientation)
    exif_chunk = b"EXIF" + struct.pack("<I", len(exif)) + exif + (b"\x00" if len(exif) % 2 else b"")
    body = b"WEBP" + vp8x + image_chunk + exif_chunk
    return b"RIFF" + struct.pack("<I", len(body)) + body


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def assert_refused(path: Path, *words: str) -> None:
    with pytest.raises(FanscanError) as caught:
        load_image(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    for word in words:
        assert word in message.lower()


@pytest.mark.parametrize("suffix", [".jpg", ".png", ".webp"])
def test_formats_decode_to_bgr_at_their_size(tmp_path: Path, suffix: str) -> None:
    image = gradient_image()
    path = tmp_path / f"photo{suffix}"
    assert cv2.imwrite(str(path), image)
    loaded = load_image(path)
    assert loaded.image.shape == image.shape
    assert loaded.image.dtype == np.uint8
    assert loaded.original_size == (120, 80)
    assert loaded.scale == 1.0
    assert loaded.path == path
    # Lossy formats drift a little; the colour layout must be the same.
    assert np.abs(loaded.image.astype(int) - image.astype(int)).mean() < 6


@pytest.mark.parametrize("orientation", [3, 6, 8])
@pytest.mark.parametrize("maker", [jpeg_with_orientation, png_with_orientation, webp_with_orientation])
def test_exif_orientation_is_applied_for_every_format(tmp_path: Path, orientation: int, maker) -> None:
    image = gradient_image()
    path = write(tmp_path, "turned.img", maker(image, orientation))
    loaded = load_image(path)
    turn = {3: cv2.ROTATE_180, 6: cv2.ROTATE_90_CLOCKWISE, 8: cv2.ROTATE_90_COUNTERCLOCKWISE}[orientation]
    expected = cv2.rotate(image, turn)
    assert loaded.orientation == orientation
    assert loaded.image.shape == expected.shape
    assert loaded.original_size == (expected.shape[1], expected.shape[0])
    assert np.abs(loaded.image.astype(int) - expected.astype(int)).mean() < 6


def test_jpeg_orientation_agrees_with_opencv_imread(tmp_path: Path) -> None:
    path = write(tmp_path, "turned.jpg", jpeg_with_orientation(gradient_image(), 6))
    by_opencv = cv2.imread(str(path), cv2.IMREAD_COLOR)  # OpenCV applies EXIF orientation to JPEGs itself
    assert np.array_equal(load_image(path).image, by_opencv)


def test_large_photo_is_scaled_down_and_the_factor_kept(tmp_path: Path) -> None:
    image = cv2.resize(gradient_image(), (4000, 3000), interpolation=cv2.INTER_LINEAR)
    path = tmp_path / "big.jpg"
    assert cv2.imwrite(str(path), image)
    loaded = load_image(path, max_side=1000)
    assert max(loaded.image.shape[:2]) <= 1000
    assert loaded.original_size == (4000, 3000)
    assert loaded.scale == pytest.approx(loaded.image.shape[1] / 4000)
    # The blue corner mark (10 px of the 120-px original = 333 px at 4000) maps back to the same place.
    mark = np.argwhere(loaded.image[..., 0] > 128)
    corner = loaded.to_original(mark.max(axis=0)[::-1])
    assert corner[0] == pytest.approx(333, abs=40) and corner[1] == pytest.approx(333, abs=40)


def test_missing_file(tmp_path: Path) -> None:
    assert_refused(tmp_path / "nowhere.jpg", "no such file")


def test_empty_file(tmp_path: Path) -> None:
    assert_refused(write(tmp_path, "empty.jpg", b""), "empty")


def test_text_file_renamed_jpg(tmp_path: Path) -> None:
    assert_refused(write(tmp_path, "notes.jpg", b"shopping list: tiles, felt\n" * 20), "not an image")


def test_unsupported_format_is_named(tmp_path: Path) -> None:
    path = tmp_path / "photo.bmp"
    assert cv2.imwrite(str(path), gradient_image())
    assert_refused(path, "not supported")


def test_truncated_jpeg(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".jpg", cv2.resize(gradient_image(), (640, 480)))
    assert ok
    data = buf.tobytes()
    assert_refused(write(tmp_path, "cut.jpg", data[: len(data) // 2]), "truncated")


def test_jpeg_cut_inside_its_header(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".jpg", gradient_image())
    assert ok
    assert_refused(write(tmp_path, "stub.jpg", buf.tobytes()[:40]), "jpeg")


def test_truncated_png(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".png", np.random.default_rng(0).integers(0, 255, (300, 300, 3), dtype=np.uint8))
    assert ok
    data = buf.tobytes()
    assert_refused(write(tmp_path, "cut.png", data[: len(data) // 2]), "png")


def test_truncated_webp(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".webp", cv2.resize(gradient_image(), (320, 240)))
    assert ok
    data = buf.tobytes()
    assert_refused(write(tmp_path, "cut.webp", data[: len(data) // 2]), "truncated")


def test_one_pixel_png(tmp_path: Path) -> None:
    path = tmp_path / "dot.png"
    assert cv2.imwrite(str(path), np.zeros((1, 1, 3), np.uint8))
    assert_refused(path, "too small")


def test_zero_size_header(tmp_path: Path) -> None:
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 0, 0, 8, 2, 0, 0, 0))
    data = b"\x89PNG\r\n\x1a\n" + ihdr + png_chunk(b"IEND", b"")
    assert_refused(write(tmp_path, "zero.png", data), "0 x 0")


def bomb_png(width: int, height: int) -> bytes:
    """A real, valid PNG of width x height black pixels: rows compress to almost nothing."""
    row = b"\x00" + b"\x00" * width  # filter byte + one grey byte per pixel
    compressor = zlib.compressobj(9)
    chunks = [compressor.compress(row) for _ in range(height)]
    idat = b"".join(chunks) + compressor.flush()
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + ihdr + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")


def test_decompression_bomb_is_refused_from_its_header_with_bounded_memory(tmp_path: Path) -> None:
    path = write(tmp_path, "bomb.png", bomb_png(20000, 20000))
    assert path.stat().st_size < 2_000_000  # 400 megapixels in under 2 MB: the point of a bomb
    tracemalloc.start()
    with pytest.raises(FanscanError) as caught:
        load_image(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "20000 x 20000" in str(caught.value)
    assert f"{MAX_PIXELS / 1e6:.0f} MP limit" in str(caught.value)
    # Python-side allocations stay near the file's size (the pixels would be 1.2 GB in OpenCV's allocator, which
    # tracemalloc does not see: that the refusal comes from the header is what keeps them from being allocated).
    assert peak < 50_000_000


@pytest.mark.parametrize(
    ("suffix", "fmt"), [(".jpg", "jpeg"), (".png", "png"), (".webp", "webp")]
)
def test_header_reports_size_without_decoding(tmp_path: Path, suffix: str, fmt: str) -> None:
    ok, buf = cv2.imencode(suffix, gradient_image(77, 55))
    assert ok
    header = read_header(buf.tobytes(), "x")
    assert (header.format, header.width, header.height) == (fmt, 77, 55)


def test_lossless_webp_header(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".webp", gradient_image(91, 47), [cv2.IMWRITE_WEBP_QUALITY, 101])
    assert ok
    data = buf.tobytes()
    assert data[12:16] == b"VP8L"
    header = read_header(data, "x")
    assert (header.width, header.height) == (91, 47)
