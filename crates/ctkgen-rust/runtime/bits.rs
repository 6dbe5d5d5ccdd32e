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

/// The integer types read and written as bitfields: unsigned ones take the bits as they are,
/// signed ones sign-extend from the field's width.
macro_rules! bit_values {
    (unsigned: $($unsigned:ty),*; signed: $($signed:ty),*) => {
        $(
            impl BitValue for $unsigned {
                #[inline]
                fn from_bits(raw: u64, _width: u32) -> Self {
                    raw as $unsigned
                }

                #[inline]
                fn to_bits(self) -> u64 {
                    self as u64
                }
            }
        )*
        $(
            impl BitValue for $signed {
                #[inline]
                fn from_bits(raw: u64, width: u32) -> Self {
                    sign_extend(raw, width) as $signed
                }

                #[inline]
                fn to_bits(self) -> u64 {
                    self as u64
                }
            }
        )*
    };
}

bit_values!(unsigned: u8, u16, u32, u64, usize; signed: i8, i16, i32, i64, isize);
