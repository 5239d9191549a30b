//! Lowercase hex, and the server's one way to mint a 256-bit secret (identity keys, the daily
//! challenge's secret): the OS's CSPRNG, never a seeded RNG.

use rand::rngs::OsRng;
use rand::Rng;

/// `bytes` as lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 256 fresh bits from the OS's CSPRNG, as 64 hex digits.
pub fn secret_256() -> String {
    hex(&OsRng.gen::<[u8; 32]>())
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_and_secrets_have_their_shape() {
        assert_eq!(super::hex(&[0, 15, 255]), "000fff");
        let (a, b) = (super::secret_256(), super::secret_256());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }
}
