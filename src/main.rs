use clap::Parser;

fn main() {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`gitmem search x | head`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = gitmem::cli::Cli::parse();
    if let Err(err) = gitmem::cli::run(cli) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
