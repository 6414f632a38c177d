"""`finetune_corrections.py` reads what `boardscan library export-corrections` writes.

    training/.venv/bin/python training/test_finetune_corrections.py [BOARDSCAN_BIN]

Starts `boardscan serve` on a temporary library, sends a fixture to
/api/v1/recognize, corrects one square through the correction route, exports
the corrections, and checks that the fine-tune loader reads the example and
finds its grid: cut there, the bundled model reads every square as the
correction says but the one corrected. Needs the training venv (torch) and a
built binary (default target/release/boardscan); CI runs neither.
"""

import json
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

import numpy as np
import torch

from finetune_corrections import (MODELS, SquareNet, cut_cells, labels_of, load_onnx_weights,
                                  place_grid, read_corrections, to_input)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target/release/boardscan"
FIXTURE = ROOT / "testdata/boards/03-pychess-merida-chesscom-green-white.png"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, body, content_type):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


class ExportedCorrectionsAreRead(unittest.TestCase):
    def test_an_exported_correction_is_a_training_example(self):
        with tempfile.TemporaryDirectory() as tmp:
            library = Path(tmp) / "library.sqlite3"
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = subprocess.Popen([str(BIN), "serve", "--bind", f"127.0.0.1:{port}", "--library", str(library)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                for _ in range(240):
                    try:
                        urllib.request.urlopen(f"{base}/api/v1/health", timeout=1)
                        break
                    except OSError:
                        time.sleep(0.25)
                board = call(f"{base}/api/v1/recognize", FIXTURE.read_bytes(), "image/png")["boards"][0]
                read = board["fen"].split(" ")
                rows = [list(r) for r in labels_of(read[0], "white").reshape(8, 8)]
                self.assertNotEqual(rows[6][0], 0, "the fixture has a piece on a2")
                corrected = read[0].split("/")
                corrected[6] = "1" + corrected[6][1:] if corrected[6][0].isalpha() else corrected[6]
                placement = "/".join(_normalise(r) for r in corrected)
                call(f"{base}/api/v1/scans/{board['scanId']}/boards/0/corrections",
                     json.dumps({"fen": " ".join([placement] + read[1:])}).encode(), "application/json")
            finally:
                server.terminate()
                server.wait(timeout=30)
            out = Path(tmp) / "export"
            subprocess.run([str(BIN), "library", "--library", str(library), "export-corrections", str(out)],
                           check=True, stdout=subprocess.DEVNULL)
            examples = read_corrections(out)
            self.assertEqual(len(examples), 1)
            img, fen, view, _ = examples[0]
            self.assertEqual(fen, placement)
            self.assertEqual(view, "white")
            model = load_onnx_weights(SquareNet(), MODELS / "squares.onnx").eval()
            x0, y0, side, v = place_grid(model, img, fen, view)
            self.assertEqual(v, "white")
            cells = cut_cells(img, x0, y0, side, np.random.default_rng(0), jitter=False)
            with torch.no_grad():
                pred = model(to_input(torch.from_numpy(cells))).argmax(1).numpy()
            differ = np.flatnonzero(pred != labels_of(fen, v))
            self.assertEqual(differ.tolist(), [6 * 8 + 0], "only a2 (row 6, column 0) differs")


def _normalise(row):
    """A FEN row with runs of empty squares merged ('1' + '3' -> '4')."""
    out, run = "", 0
    for c in row:
        if c.isdigit():
            run += int(c)
        else:
            out += (str(run) if run else "") + c
            run = 0
    return out + (str(run) if run else "")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
