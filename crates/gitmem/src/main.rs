mod cli;

use clap::Parser;

fn main() {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`gitmem search x | head`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = cli::Cli::parse();
    // An HTTP server logs each request by default; everything else only what went wrong.
    let level = if cli.serves_http() {
        "warn,gitmem=info"
    } else {
        "warn"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour codes are for a person at a terminal; a log file or a collector gets plain
        // text, and an HTTP server logging each request saves the work.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if cli.log_format == "json" {
        logs.json().with_current_span(true).init();
    } else {
        logs.init();
    }
    if let Err(err) = cli::run(cli) {
        eprintln!("error: {}", report(&err));
        std::process::exit(1);
    }
}

/// The error and its causes, as anyhow's `{:#}` chains them, but without a cause the text
/// before it already shows: most errors name their source in their own message, and would
/// otherwise print it twice.
fn report(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1).map(ToString::to_string) {
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
