//! What a TLS stack offers kembench: a client and a server side, each driven by bytes in and
//! bytes out, so the same driver runs both stacks in memory (CPU cost) and over TCP (network
//! conditions).

use super::groups::StackKind;
use crate::record::tls::Mode;

/// A client's resumable session, kept between handshakes (what each stack keeps is its own).
pub type Session = Box<dyn std::any::Any + Send>;

/// One side of one connection.
pub trait Side {
    /// Processes bytes received from the peer.
    fn receive(&mut self, data: &[u8]) -> Result<(), String>;
    /// Appends what this side has to send to `out`.
    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), String>;
    /// Whether the handshake is still in progress.
    fn handshaking(&self) -> bool;
    /// The negotiated group's name as the stack reports it.
    fn group(&self) -> Option<String>;
    /// 32 bytes of keying material exported with kembench's label (RFC 8446, 7.5).
    fn export(&mut self) -> Result<Vec<u8>, String>;
    /// Whether the handshake resumed a session.
    fn resumed(&self) -> bool;
    /// Queues application data to send (after the handshake).
    fn write_app(&mut self, data: &[u8]) -> Result<(), String>;
    /// Application data received so far.
    fn read_app(&mut self) -> Result<Vec<u8>, String>;
    /// The client's session for a later resumed handshake, once it has one.
    fn session(&mut self) -> Option<Session>;
}

/// A TLS stack configured for one group and one certificate chain: it makes client and
/// server sides. Shared by the threads of a scaling run.
pub trait Stack: Send + Sync {
    /// Which stack.
    fn kind(&self) -> StackKind;
    /// Its version, for the record.
    fn version(&self) -> String;
    /// A new client side for a handshake of `mode`; `session` resumes (mode `Resumed`).
    fn client(&self, mode: Mode, session: Option<Session>) -> Result<Box<dyn Side>, String>;
    /// A new server side.
    fn server(&self) -> Result<Box<dyn Side>, String>;
}

/// The exporter label of the checks.
pub const EXPORT_LABEL: &[u8] = b"EXPORTER-kembench-tls-check";
