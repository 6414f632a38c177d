#!/usr/bin/env bash
# Rebuilds the PDF test inputs from book-typeset.tex: the born-digital book
# (pdflatex, the chessboard package: font-drawn diagrams) and a "scanned"
# copy of it (each page rasterised to a 150 dpi greyscale JPEG, the way a
# scanner hands pages over, and wrapped by img2pdf, so the PDF holds only
# page images). Needs Debian's texlive-games, texlive-latex-extra,
# poppler-utils and img2pdf; the expected boards are in books.csv.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pdflatex -interaction=batchmode -output-directory "$tmp" book-typeset.tex >/dev/null
cp "$tmp/book-typeset.pdf" .
pdftoppm -r 150 -gray -jpeg -jpegopt quality=80 book-typeset.pdf "$tmp/page"
img2pdf -o book-scanned.pdf "$tmp"/page-*.jpg
