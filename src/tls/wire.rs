//! Reading what a flight carries on the wire: its TLS records, and in a ClientHello or a
//! ServerHello the `key_share` extension. The checks use it to see the negotiated group on the
//! wire, independently of what either stack reports, and the flight sizes use it to count
//! records.

/// `ServerHello.random` of a HelloRetryRequest (RFC 8446, 4.1.3).
const HRR_RANDOM: [u8; 32] = [
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
];

const CHANGE_CIPHER_SPEC: u8 = 20;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
const KEY_SHARE: u16 = 51;

/// The number of TLS records in `bytes` (a trailing partial record counts as one).
pub fn records(bytes: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i + 5 <= bytes.len() {
        let len = u16::from_be_bytes([bytes[i + 3], bytes[i + 4]]) as usize;
        i += 5 + len;
        n += 1;
    }
    n + usize::from(i < bytes.len())
}

/// What a flight opens with on the wire, a leading `change_cipher_spec` record (TLS 1.3's
/// middlebox compatibility) skipped: the name a flight is given is read from this, never
/// from its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// A ClientHello.
    ClientHello,
    /// A ServerHello that is a HelloRetryRequest.
    HelloRetryRequest,
    /// A ServerHello (the server's flight up to its Finished).
    ServerHello,
    /// Encrypted records only (TLS 1.3 hides the handshake's later messages, the client's
    /// Finished and the server's NewSessionTickets, as application data).
    Encrypted,
    /// Anything else: another record type, another handshake message, bytes that do not
    /// parse.
    Other,
}

/// What `flight` opens with.
pub fn opening(flight: &[u8]) -> Opening {
    let mut i = 0;
    while flight.get(i) == Some(&CHANGE_CIPHER_SPEC) && i + 5 <= flight.len() {
        i += 5 + u16::from_be_bytes([flight[i + 3], flight[i + 4]]) as usize;
    }
    let rest = flight.get(i..).unwrap_or_default();
    match (rest.first(), hello(rest)) {
        (_, Some(h)) if h.msg_type == 1 => Opening::ClientHello,
        (_, Some(h)) if h.retry => Opening::HelloRetryRequest,
        (_, Some(_)) => Opening::ServerHello,
        (Some(&APPLICATION_DATA), None) => Opening::Encrypted,
        _ => Opening::Other,
    }
}

/// What a hello message carries in its `key_share` extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// 1 = ClientHello, 2 = ServerHello.
    pub msg_type: u8,
    /// A ServerHello that is a HelloRetryRequest.
    pub retry: bool,
    /// (group, key-share length) per entry; a HelloRetryRequest's entry has length 0.
    pub shares: Vec<(u16, usize)>,
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.i..self.i + n)?;
        self.i += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        let s = self.take(2)?;
        Some(u16::from_be_bytes([s[0], s[1]]))
    }
    fn vec8(&mut self) -> Option<&'a [u8]> {
        let n = self.u8()? as usize;
        self.take(n)
    }
    fn vec16(&mut self) -> Option<&'a [u8]> {
        let n = self.u16()? as usize;
        self.take(n)
    }
}

/// The first handshake message of a flight when it is a ClientHello or a ServerHello (read
/// from the first record, which is where both stacks put it).
pub fn hello(flight: &[u8]) -> Option<Hello> {
    let mut rec = Reader { b: flight, i: 0 };
    if rec.u8()? != HANDSHAKE {
        return None;
    }
    rec.take(2)?;
    let body = rec.vec16()?;
    let mut m = Reader { b: body, i: 0 };
    let msg_type = m.u8()?;
    let len = m.take(3)?;
    let len = u32::from_be_bytes([0, len[0], len[1], len[2]]) as usize;
    let mut h = Reader {
        b: m.take(len.min(body.len() - 4))?,
        i: 0,
    };
    h.take(2)?; // legacy_version
    let random = h.take(32)?;
    h.vec8()?; // legacy_session_id
    let retry = msg_type == 2 && random == HRR_RANDOM;
    match msg_type {
        1 => {
            h.vec16()?; // cipher_suites
            h.vec8()?; // compression methods
        }
        2 => {
            h.take(3)?; // cipher_suite, compression method
        }
        _ => return None,
    }
    let mut ext = Reader {
        b: h.vec16()?,
        i: 0,
    };
    let mut shares = Vec::new();
    while ext.i < ext.b.len() {
        let ty = ext.u16()?;
        let data = ext.vec16()?;
        if ty != KEY_SHARE {
            continue;
        }
        let mut d = Reader { b: data, i: 0 };
        match (msg_type, retry) {
            (1, _) => {
                let mut list = Reader {
                    b: d.vec16()?,
                    i: 0,
                };
                while list.i < list.b.len() {
                    let g = list.u16()?;
                    shares.push((g, list.vec16()?.len()));
                }
            }
            (_, true) => shares.push((d.u16()?, 0)),
            _ => {
                let g = d.u16()?;
                shares.push((g, d.vec16()?.len()));
            }
        }
    }
    Some(Hello {
        msg_type,
        retry,
        shares,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(msg_type: u8, hello_body: &[u8]) -> Vec<u8> {
        let mut hs = vec![msg_type];
        hs.extend_from_slice(&(hello_body.len() as u32).to_be_bytes()[1..]);
        hs.extend_from_slice(hello_body);
        let mut r = vec![22, 3, 1];
        r.extend_from_slice(&(hs.len() as u16).to_be_bytes());
        r.extend_from_slice(&hs);
        r
    }

    fn ext(ty: u16, data: &[u8]) -> Vec<u8> {
        let mut e = ty.to_be_bytes().to_vec();
        e.extend_from_slice(&(data.len() as u16).to_be_bytes());
        e.extend_from_slice(data);
        e
    }

    #[test]
    fn reads_a_client_hello_key_share() {
        let mut shares = Vec::new();
        shares.extend_from_slice(&0x11ecu16.to_be_bytes());
        shares.extend_from_slice(&1216u16.to_be_bytes());
        shares.extend(std::iter::repeat_n(7u8, 1216));
        let mut ks = (shares.len() as u16).to_be_bytes().to_vec();
        ks.extend_from_slice(&shares);
        let exts = [ext(0, b"x"), ext(KEY_SHARE, &ks)].concat();
        let mut body = vec![3, 3];
        body.extend_from_slice(&[1; 32]);
        body.extend_from_slice(&[0]); // session id
        body.extend_from_slice(&[0, 2, 0x13, 0x01, 1, 0]);
        body.extend_from_slice(&(exts.len() as u16).to_be_bytes());
        body.extend_from_slice(&exts);
        let flight = record(1, &body);
        let h = hello(&flight).unwrap();
        assert_eq!(h.shares, vec![(0x11ec, 1216)]);
        assert!(!h.retry);
        assert_eq!(records(&flight), 1);
        assert_eq!(records(&[flight.clone(), flight].concat()), 2);
    }

    /// A ServerHello body with `random` and a key_share extension holding `share`.
    fn server_hello(random: &[u8; 32], share: &[u8]) -> Vec<u8> {
        let exts = ext(KEY_SHARE, share);
        let mut body = vec![3, 3];
        body.extend_from_slice(random);
        body.extend_from_slice(&[0, 0x13, 0x01, 0]);
        body.extend_from_slice(&(exts.len() as u16).to_be_bytes());
        body.extend_from_slice(&exts);
        body
    }

    #[test]
    fn reads_a_hello_retry_request() {
        let body = server_hello(&HRR_RANDOM, &0x11ecu16.to_be_bytes());
        let h = hello(&record(2, &body)).unwrap();
        assert!(h.retry);
        assert_eq!(h.shares, vec![(0x11ec, 0)]);
    }

    /// A flight's opening is read off its records: a leading change_cipher_spec record is
    /// skipped (the second ClientHello after it is still a ClientHello), encrypted records are
    /// encrypted, anything else is other.
    #[test]
    fn a_flight_opens_with_what_its_first_record_carries() {
        let retry = server_hello(&HRR_RANDOM, &0x11ecu16.to_be_bytes());
        assert_eq!(opening(&record(2, &retry)), Opening::HelloRetryRequest);
        // Another random, and a share: a plain ServerHello.
        let server = server_hello(&[2; 32], &[0x11, 0xec, 0, 1, 7]);
        assert_eq!(opening(&record(2, &server)), Opening::ServerHello);
        let mut client = vec![3, 3];
        client.extend_from_slice(&[1; 32]);
        client.extend_from_slice(&[0, 0, 2, 0x13, 0x01, 1, 0, 0, 0]);
        let ccs = [20, 3, 3, 0, 1, 1];
        assert_eq!(opening(&record(1, &client)), Opening::ClientHello);
        assert_eq!(
            opening(&[&ccs[..], &record(1, &client)].concat()),
            Opening::ClientHello
        );
        let app = [23, 3, 3, 0, 2, 9, 9];
        assert_eq!(opening(&app), Opening::Encrypted);
        assert_eq!(opening(&[&ccs[..], &app[..]].concat()), Opening::Encrypted);
        assert_eq!(opening(&ccs), Opening::Other);
        assert_eq!(opening(&[21, 3, 3, 0, 2, 2, 40]), Opening::Other);
        assert_eq!(opening(&record(4, &[0; 8])), Opening::Other);
        assert_eq!(opening(&[]), Opening::Other);
    }

    #[test]
    fn other_bytes_are_not_a_hello() {
        assert!(hello(&[23, 3, 3, 0, 1, 0]).is_none());
        assert!(hello(&[]).is_none());
    }
}
