//! The `kembench` binary: parse arguments, run the command, print the error chain and exit
//! with the code its kind calls for ([`kembench::exit`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = kembench::commands::Cli::parse_args();
    match kembench::commands::run(cli) {
        // The reader of standard output went away (`| head`): the command stopped printing
        // (and measuring) and ends as a shell expects of a writer whose pipe closed.
        Ok(_) if kembench::interrupt::is_reader_gone() => {
            ExitCode::from(kembench::exit::READER_GONE)
        }
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(kembench::exit::code_for(&e))
        }
    }
}
