"""A minimal PNG decoder (8-bit RGB/RGBA/grey, non-interlaced: what Chromium's screenshots are),
so the browser test needs nothing beyond the Python standard library."""

import struct
import zlib


class Image:
    def __init__(self, width, height, channels, rows):
        self.width = width
        self.height = height
        self.channels = channels
        self.rows = rows  # one bytes object per row, channels bytes per pixel

    def pixel(self, x, y):
        c = self.channels
        return tuple(self.rows[y][x * c:(x + 1) * c][:3])


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s: not a PNG file' % path)
    pos = 8
    idat = b''
    width = height = None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            width, height, depth, color, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or interlace != 0 or color not in (0, 2, 4, 6):
                raise ValueError('%s: unsupported PNG (depth %d, colour %d, interlace %d)'
                                 % (path, depth, color, interlace))
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
    if width is None:
        raise ValueError('%s: no IHDR' % path)
    raw = zlib.decompress(idat)
    stride = width * channels
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xff
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up_left = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + _paeth(left, prev[i], up_left)) & 0xff
        elif kind != 0:
            raise ValueError('%s: bad PNG filter %d' % (path, kind))
        rows.append(bytes(line))
        prev = line
    if channels < 3:  # grey: expand so pixel() always gives RGB
        rows = [bytes(b for v in r[::channels] for b in (v, v, v)) for r in rows]
        channels = 3
    return Image(width, height, channels, rows)


def write_png(path, image, x0, y0, width, height):
    """Writes a crop of image as RGB (for looking at a part of a tall screenshot)."""
    c = image.channels
    raw = b''.join(b'\x00' + bytes(v for x in range(x0, x0 + width)
                                   for v in image.rows[y][x * c:x * c + 3])
                   for y in range(y0, y0 + height))

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n'
                + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
