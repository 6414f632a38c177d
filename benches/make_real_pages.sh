#!/usr/bin/env bash
# Lays out labelled diagram crops two to a PDF page, as books print them: a
# paragraph of text, a diagram 65 mm wide, its caption, the next diagram and
# its caption. Writes OUT_DIR/pages.pdf and OUT_DIR/labels.csv (one row per
# diagram, with its page and index) for `boardscan eval OUT_DIR/labels.csv`.
#
#   bash benches/make_real_pages.sh LABELS_CSV OUT_DIR
#
# LABELS_CSV is an eval labels file (file,fen,view,kind) whose images lie
# beside it, such as ../shared/realworld-dev/books/labels.csv. The crops are
# only referenced by the PDF built in OUT_DIR; nothing is copied into the
# project. Needs Debian's texlive-latex-base (pdflatex, graphicx).
set -euo pipefail
labels=${1:?usage: make_real_pages.sh LABELS_CSV OUT_DIR}
out=${2:?usage: make_real_pages.sh LABELS_CSV OUT_DIR}
dir="$(cd "$(dirname "$labels")" && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The labelled rows: file,fen,view,kind (extra columns are ignored).
mapfile -t rows < <(tail -n +2 "$labels" | grep -v '^\s*$')
text="The position arose after a long manoeuvring game in which both sides \
kept their pawn chains intact. Before looking at the solution, count the \
pieces that defend the king and ask which of them is overloaded."
{
    echo '\documentclass[10pt]{article}'
    echo '\usepackage[paperwidth=148mm,paperheight=210mm,margin=14mm]{geometry}'
    echo '\usepackage{graphicx}'
    echo '\pagestyle{plain}'
    echo '\begin{document}'
    for ((i = 0; i < ${#rows[@]}; i++)); do
        IFS=, read -r file _ <<<"${rows[$i]}"
        echo "\\noindent $text"
        echo '\begin{center}'
        echo "\\includegraphics[width=65mm,height=72mm,keepaspectratio]{$dir/$file}\\\\[1mm]"
        echo "{\\small Diagram $((i + 1)). Find the best continuation.}"
        echo '\end{center}'
        if ((i % 2 == 1)); then echo '\newpage'; fi
    done
    echo '\end{document}'
} >"$tmp/pages.tex"
(cd "$tmp" && pdflatex -interaction=batchmode pages.tex >/dev/null) || {
    echo "pdflatex failed; its log: $tmp/pages.log" >&2
    cat "$tmp/pages.log" >&2
    exit 1
}
cp "$tmp/pages.pdf" "$out/pages.pdf"
{
    echo 'file,fen,view,kind,page,index'
    for ((i = 0; i < ${#rows[@]}; i++)); do
        IFS=, read -r _ fen view kind _ <<<"${rows[$i]}"
        echo "pages.pdf,$fen,$view,${kind}_page,$((i / 2 + 1)),$((i % 2 + 1))"
    done
} >"$out/labels.csv"
echo "$out/pages.pdf: ${#rows[@]} diagrams on $(((${#rows[@]} + 1) / 2)) pages"
