//! PII made of digits: mobile numbers, resident ID numbers, payment cards. Each one is
//! a whole number in the text (no letter or digit right before or after it) that passes
//! its own structure check.

use super::{Finding, PiiKind};

/// ISO 7064 MOD 11-2 weights of the first 17 digits of a resident ID number.
const ID_WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/// The check character for each remainder.
const ID_CHECK: &[u8; 11] = b"10X98765432";

pub(super) fn find(text: &str, out: &mut Vec<Finding>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && is_glued(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        // Digits, with single spaces or dashes between groups (card numbers).
        let mut digits = Vec::with_capacity(20);
        let mut end = i;
        let mut separated = false;
        while end < bytes.len() {
            let c = bytes[end];
            if c.is_ascii_digit() {
                digits.push(c - b'0');
                end += 1;
            } else if matches!(c, b' ' | b'-')
                && end + 1 < bytes.len()
                && bytes[end + 1].is_ascii_digit()
                && digits.len() < 19
            {
                separated = true;
                end += 1;
            } else {
                break;
            }
        }
        let next = bytes.get(end).copied();
        i = end.max(i + 1);
        // An ID number may end in X.
        if !separated && digits.len() == 17 && matches!(next, Some(b'X' | b'x')) {
            let after = bytes.get(end + 1).copied();
            if after.is_none_or(|c| !is_glued(c)) && id_check(&digits) == b'X' {
                out.push(found(PiiKind::IdNumber, start, end + 1));
                i = end + 1;
            }
            continue;
        }
        if next.is_some_and(is_glued) {
            continue;
        }
        if !separated {
            if digits.len() == 18 && id_check(&digits[..17]) == b'0' + digits[17] {
                out.push(found(PiiKind::IdNumber, start, end));
                continue;
            }
            if digits.len() == 11 && digits[0] == 1 && (3..=9).contains(&digits[1]) {
                out.push(found(PiiKind::Phone, start, end));
                continue;
            }
        }
        if is_card(&digits) {
            out.push(found(PiiKind::CreditCard, start, end));
            continue;
        }
        // A grouped run that is not a card may still hold a phone number at its end, as
        // in "call 0086-13812345678": look again from the last group.
        if separated {
            if let Some(last) = bytes[start..end]
                .iter()
                .rposition(|c| matches!(c, b' ' | b'-'))
            {
                i = start + last + 1;
            }
        }
    }
}

/// A character that makes a digit run part of a longer word or number.
fn is_glued(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn found(kind: PiiKind, start: usize, end: usize) -> Finding {
    Finding {
        kind,
        range: start..end,
    }
}

/// The check character of an ID number's first 17 digits.
fn id_check(digits: &[u8]) -> u8 {
    let sum: u32 = digits
        .iter()
        .zip(ID_WEIGHTS)
        .map(|(digit, weight)| u32::from(*digit) * weight)
        .sum();
    ID_CHECK[(sum % 11) as usize]
}

/// 13 to 19 digits, an issuer prefix in use, and a valid Luhn checksum.
fn is_card(digits: &[u8]) -> bool {
    (13..=19).contains(&digits.len()) && issuer(digits) && luhn(digits)
}

/// Visa 4; Mastercard 51-55 and 2221-2720; Amex 34, 37; Discover 6011, 644-649, 65;
/// JCB 3528-3589; UnionPay 62; Diners 36, 38.
fn issuer(digits: &[u8]) -> bool {
    let prefix = |n: usize| {
        digits
            .iter()
            .take(n)
            .fold(0u32, |acc, digit| acc * 10 + u32::from(*digit))
    };
    let two = prefix(2);
    let three = prefix(3);
    let four = prefix(4);
    digits[0] == 4
        || (51..=55).contains(&two)
        || (2221..=2720).contains(&four)
        || matches!(two, 34 | 37 | 36 | 38 | 62 | 65)
        || four == 6011
        || (644..=649).contains(&three)
        || (3528..=3589).contains(&four)
}

fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(index, digit)| {
            let digit = u32::from(*digit);
            if index % 2 == 1 {
                let doubled = digit * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                digit
            }
        })
        .sum();
    sum % 10 == 0
}
