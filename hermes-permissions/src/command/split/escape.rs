//! Decoding of ANSI-C quoted strings (`$'...'`).

/// Decode one escape of `$'...'`; `i` is just after the backslash. Returns
/// the index after the escape.
pub(super) fn decode_escape(src: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let Some(&c) = src.get(i) else {
        out.push(b'\\');
        return i;
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'v' => Some(0x0b),
        b'\\' | b'\'' | b'"' | b'?' => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return i + 1;
    }
    match c {
        b'x' => {
            let (value, used) = read_digits(src, i + 1, 16, 2);
            if used == 0 {
                out.extend_from_slice(b"\\x");
            } else {
                out.push(u8::try_from(value & 0xff).unwrap_or_default());
            }
            i + 1 + used
        }
        b'0'..=b'7' => {
            let (value, used) = read_digits(src, i, 8, 3);
            out.push(u8::try_from(value & 0xff).unwrap_or_default());
            i + used
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let (value, used) = read_digits(src, i + 1, 16, max);
            match char::from_u32(value).filter(|_| used > 0) {
                Some(ch) => {
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                None => out.extend_from_slice(&[b'\\', c]),
            }
            i + 1 + used
        }
        // `\cX` is a control character; it never spells anything useful.
        b'c' => (i + 2).min(src.len()),
        _ => {
            out.extend_from_slice(&[b'\\', c]);
            i + 1
        }
    }
}

fn read_digits(src: &[u8], start: usize, radix: u32, max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    while used < max {
        let Some(digit) = src
            .get(start + used)
            .and_then(|&b| char::from(b).to_digit(radix))
        else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(digit);
        used += 1;
    }
    (value, used)
}
