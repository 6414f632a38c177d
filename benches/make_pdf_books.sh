#!/usr/bin/env bash
# Makes the PDF speed benchmark's inputs: a born-digital book of PAGES pages
# (LaTeX's chessboard package, two diagrams a page, the positions of
# testdata/boards.csv in turn, a paragraph of text under each) and its
# scanned copy (every page a 150 dpi greyscale JPEG, wrapped by img2pdf).
#
#   bash benches/make_pdf_books.sh OUT_DIR [PAGES]
#
# Needs Debian's texlive-games, texlive-latex-extra, poppler-utils, img2pdf.
set -euo pipefail
out=${1:?usage: make_pdf_books.sh OUT_DIR [PAGES]}
pages=${2:-200}
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t fens < <(tail -n +2 "$root/testdata/boards.csv" | cut -d, -f2 | grep -v '^$')
{
    echo '\documentclass[a4paper]{article}'
    echo '\usepackage[margin=20mm]{geometry}'
    echo '\usepackage{chessboard}'
    echo '\setchessboard{showmover=false, boardfontsize=16pt, labelleft=true, labelbottom=true}'
    echo '\begin{document}'
    for ((p = 0; p < pages; p++)); do
        for d in 0 1; do
            fen=${fens[$(((2 * p + d) % ${#fens[@]}))]}
            echo '\begin{center}'
            echo "\\chessboard[setfen=$fen w - - 0 1]"
            echo '\end{center}'
            echo "Diagram $((2 * p + d + 1)). White to move. The position arose after a long manoeuvring game; find the plan that keeps the initiative."
            echo
        done
        echo '\newpage'
    done
    echo '\end{document}'
} >"$tmp/book.tex"
pdflatex -interaction=batchmode -output-directory "$tmp" "$tmp/book.tex" >/dev/null
cp "$tmp/book.pdf" "$out/book-typeset.pdf"
pdftoppm -r 150 -gray -jpeg -jpegopt quality=80 "$out/book-typeset.pdf" "$tmp/page"
img2pdf -o "$out/book-scanned.pdf" "$tmp"/page-*.jpg
echo "$out/book-typeset.pdf and $out/book-scanned.pdf: $pages pages, $((2 * pages)) diagrams"
