//! Command-line definitions (clap) and nothing else.

use clap::{Args, Parser, Subcommand};

/// Benchmark and profile KEMs and key exchange across implementations.
#[derive(Debug, Parser)]
#[command(name = "kembench", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List algorithms, their sizes and their implementations.
    List {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Run the correctness gate: round trips, sizes, canaries, tampering, bad lengths,
    /// interoperability and known answers. Exits 1 if any check fails.
    Verify {
        /// Which implementations.
        #[command(flatten)]
        filter: FilterArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Worker threads (default: the logical CPUs).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// Fewest round trips per implementation, however slow it is.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        min_round_trips: u32,
    },
}

/// Selection of (algorithm, implementation) pairs, shared by every command.
#[derive(Debug, Clone, Args)]
pub struct FilterArgs {
    /// Algorithm names or globs, case-insensitive (e.g. `ML-KEM-*`); repeat or separate by commas.
    #[arg(long = "alg", value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Implementation ids or globs (e.g. `liboqs`, `pqclean/*`, `libcrux/avx2`).
    #[arg(long = "impl", value_delimiter = ',')]
    pub implementations: Vec<String>,
    /// Only this family: module-lattice, ntru-lattice, unstructured-lattice, code-based,
    /// elliptic-curve, finite-field, hybrid.
    #[arg(long, value_parser = parse_family)]
    pub family: Option<crate::kem::Family>,
    /// Only this claimed NIST security level (1-5).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub level: Option<u8>,
    /// Also offer the deterministic mock implementations (for tests).
    #[arg(long)]
    pub include_mock: bool,
}

fn parse_family(s: &str) -> Result<crate::kem::Family, String> {
    use crate::kem::Family;
    Family::parse(&s.to_ascii_lowercase()).ok_or_else(|| {
        let names: Vec<String> = Family::ALL.iter().map(|f| f.as_str().to_string()).collect();
        let near = crate::kem::registry::nearest(s, &names);
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!(" (did you mean {}?)", near.join(", "))
        };
        format!("unknown family '{s}'{hint}; known: {}", names.join(", "))
    })
}

impl FilterArgs {
    /// The registry filter these arguments describe.
    pub fn to_filter(&self) -> crate::kem::registry::Filter {
        crate::kem::registry::Filter {
            algorithms: self.algorithms.clone(),
            implementations: self.implementations.clone(),
            family: self.family,
            level: self.level,
        }
    }
}
