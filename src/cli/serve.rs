//! `serve`, and the hidden `render-pdf` that renders PDFs for another
//! boardscan process.

use std::process::ExitCode;

use boardscan::{
    api::{self, ServiceConfig},
    source::{self, PdfLimits},
};

/// Options of `render-pdf` (hidden): the limits the parent process passes.
#[derive(clap::Args)]
pub struct RenderPdfArgs {
    #[arg(long)]
    dpi: f32,
    #[arg(long)]
    max_pages: usize,
    #[arg(long)]
    max_page_pixels: u64,
    #[arg(long)]
    max_memory_bytes: u64,
    #[arg(long)]
    first: usize,
    #[arg(long)]
    last: usize,
}

/// `serve`: the HTTP service until it is stopped.
pub fn serve(config: ServiceConfig) -> anyhow::Result<ExitCode> {
    api::serve(config)?;
    Ok(ExitCode::SUCCESS)
}

/// `render-pdf`: renders the PDF on standard input, pages `first..=last`,
/// for the parent on standard output.
pub fn render_pdf(args: &RenderPdfArgs) -> anyhow::Result<ExitCode> {
    let limits = PdfLimits {
        dpi: args.dpi,
        max_pages: args.max_pages,
        max_page_pixels: args.max_page_pixels,
        max_memory_bytes: args.max_memory_bytes,
        ..PdfLimits::default()
    };
    source::serve_child(
        std::io::stdin(),
        std::io::stdout(),
        limits,
        (args.first, args.last),
    )?;
    Ok(ExitCode::SUCCESS)
}
