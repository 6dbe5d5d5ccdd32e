// The bit helpers of the generated crate's `runtime` module, emitted as written (`include_str!`,
// then parsed) when some record of the header has bitfields. Bitfield storage is a byte array;
// bit `n` of a unit is bit `n % 8` of byte `n / 8`, the little-endian order the C compilers use
// on the targets ctkgen supports.

/// Reads `width` bits starting at bit `offset` of a little-endian bitfield unit.
#[inline]
pub(crate) fn get_bits<const N: usize>(unit: &[u8; N], offset: u32, width: u32) -> u64 {
    let mut value = 0u64;
    for i in 0..width {
        let bit = (offset + i) as usize;
        if unit[bit / 8] >> (bit % 8) & 1 == 1 {
            value |= 1 << i;
        }
    }
    value
}

/// Writes the low `width` bits of `value` at bit `offset` of a bitfield unit.
#[inline]
pub(crate) fn set_bits<const N: usize>(unit: &mut [u8; N], offset: u32, width: u32, value: u64) {
    for i in 0..width {
        let bit = (offset + i) as usize;
        let mask = 1u8 << (bit % 8);
        if value >> i & 1 == 1 {
            unit[bit / 8] |= mask;
        } else {
            unit[bit / 8] &= !mask;
        }
    }
}

/// Sign-extends the low `width` bits of `raw`.
#[inline]
fn sign_extend(raw: u64, width: u32) -> i64 {
    let unused = u64::BITS - width;
    ((raw << unused) as i64) >> unused
}

/// A bitfield's declared type: how its bits convert to and from a value.
pub(crate) trait BitValue: Sized {
    fn from_bits(raw: u64, width: u32) -> Self;
    fn to_bits(self) -> u64;
}

impl BitValue for bool {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw != 0
    }

    #[inline]
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
}

impl BitValue for u8 {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw as u8
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for u16 {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw as u16
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for u32 {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw as u32
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for u64 {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self
    }
}

impl BitValue for usize {
    #[inline]
    fn from_bits(raw: u64, _width: u32) -> Self {
        raw as usize
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for i8 {
    #[inline]
    fn from_bits(raw: u64, width: u32) -> Self {
        sign_extend(raw, width) as i8
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for i16 {
    #[inline]
    fn from_bits(raw: u64, width: u32) -> Self {
        sign_extend(raw, width) as i16
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for i32 {
    #[inline]
    fn from_bits(raw: u64, width: u32) -> Self {
        sign_extend(raw, width) as i32
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for i64 {
    #[inline]
    fn from_bits(raw: u64, width: u32) -> Self {
        sign_extend(raw, width)
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl BitValue for isize {
    #[inline]
    fn from_bits(raw: u64, width: u32) -> Self {
        sign_extend(raw, width) as isize
    }

    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
}
