"""Convert chess piece meshes to POV-Ray `mesh2` include files.

Reads Wavefront OBJ (brutalchess's models) and DreamChess's `.dcm` text format,
and writes one `#declare NAME = mesh2 { ... }` per piece with smooth normals
(OBJ: averaged over faces meeting at under 40 degrees, so sharp rims stay sharp;
DCM: the file's own normals). Every mesh is put into the scene's frame: y up,
standing on y = 0, its base centred on the y axis, not scaled; a knight is
turned so that its muzzle points along +z. `convert_set` returns each
piece's height and base radius in those units, which the caller scales.

Used by render_physical.py; also runnable to inspect: python3 obj_to_pov.py FILE.obj
"""

import math
import sys
from pathlib import Path

import numpy as np

CREASE_DEG = 40.0


def read_obj(path):
    """Vertices (n, 3) and triangles (m, 3) of an OBJ file; polygons are fanned,
    negative (relative) indices resolved, texture coordinates and normals dropped."""
    verts, faces = [], []
    for line in Path(path).read_text(errors="replace").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            verts.append([float(p) for p in parts[1:4]])
        elif parts[0] == "f":
            idx = []
            for p in parts[1:]:
                k = int(p.split("/")[0])
                idx.append(k - 1 if k > 0 else len(verts) + k)
            for j in range(1, len(idx) - 1):
                faces.append((idx[0], idx[j], idx[j + 1]))
    v = np.array(verts, float)
    # OBJ is right-handed, POV-Ray left-handed: flip z so the model is not mirrored.
    v[:, 2] = -v[:, 2]
    return v, np.array(faces, int)


def read_dcm(path):
    """Vertices, per-vertex normals and triangles of a DreamChess `.dcm` file:
    `DCM 0100`, a vertex count n, 3n coordinates, 3n normal components, 2n
    texture coordinates, a primitive count, then primitives each `STRIP` or
    `TRIANGLES`, an index count and the indices (strips as in OpenGL)."""
    tok = Path(path).read_text().split()
    if tok[0] != "DCM":
        raise ValueError(f"{path}: not a DCM file")
    pos = 2
    n = int(tok[pos]); pos += 1
    v = np.array(tok[pos:pos + 3 * n], float).reshape(n, 3); pos += 3 * n
    nrm = np.array(tok[pos:pos + 3 * n], float).reshape(n, 3); pos += 3 * n
    pos += 2 * n
    count = int(tok[pos]); pos += 1
    faces = []
    for _ in range(count):
        kind = tok[pos]; k = int(tok[pos + 1]); pos += 2
        idx = [int(t) for t in tok[pos:pos + k]]; pos += k
        if kind == "STRIP":
            for j in range(k - 2):
                a, b, c = idx[j], idx[j + 1], idx[j + 2]
                if j % 2:
                    a, b = b, a
                if len({a, b, c}) == 3:
                    faces.append((a, b, c))
        elif kind == "TRIANGLES":
            faces += [tuple(idx[j:j + 3]) for j in range(0, k - 2, 3)]
        else:
            raise ValueError(f"{path}: unknown primitive {kind}")
    # z up, right-handed -> y up, left-handed: swapping y and z is the one reflection.
    return v[:, [0, 2, 1]], nrm[:, [0, 2, 1]], np.array(faces, int)


def weld(v, faces, tol=1e-5):
    """Merge vertices at the same position (seams of texture coordinates)."""
    key = np.round(v / tol).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return v[first], inverse.reshape(-1)[faces]


def corner_normals(v, faces, crease_deg=CREASE_DEG):
    """A normal for each face corner (m, 3, 3): the area-weighted mean of the normals
    of the faces around that vertex that meet this face at under crease_deg."""
    fn = np.cross(v[faces[:, 1]] - v[faces[:, 0]], v[faces[:, 2]] - v[faces[:, 0]])
    area = np.linalg.norm(fn, axis=1)
    unit = fn / np.maximum(area, 1e-20)[:, None]
    around = [[] for _ in range(len(v))]
    for f, tri in enumerate(faces):
        for k in tri:
            around[k].append(f)
    cos_crease = math.cos(math.radians(crease_deg))
    out = np.zeros((len(faces), 3, 3))
    for f, tri in enumerate(faces):
        for c, k in enumerate(tri):
            nb = np.array(around[k])
            # Faces wound either way: compare orientation-free.
            dots = unit[nb] @ unit[f]
            sel = np.abs(dots) >= cos_crease
            s = (fn[nb[sel]] * np.sign(dots[sel])[:, None]).sum(0)
            n = np.linalg.norm(s)
            out[f, c] = s / n if n > 0 else unit[f]
    return out


def normalise_frame(v, knight=False):
    """Translation (and for a knight a turn about y) putting the mesh on y = 0 with
    its base centred on the axis (and the muzzle along +z). Returns new vertices,
    the 3x3 turn applied, height and base radius."""
    v = v.copy()
    v[:, 1] -= v[:, 1].min()
    h = v[:, 1].max()
    low = v[v[:, 1] < 0.08 * h]
    centre = (low[:, [0, 2]].min(0) + low[:, [0, 2]].max(0)) / 2
    v[:, 0] -= centre[0]
    v[:, 2] -= centre[1]
    turn = np.eye(3)
    if knight:
        # The muzzle: the point of the head (upper half) farthest from the axis.
        head = v[(v[:, 1] > 0.45 * h) & (v[:, 1] < 0.9 * h)]
        r = np.hypot(head[:, 0], head[:, 2])
        tip = head[np.argmax(r)]
        a = math.atan2(tip[0], tip[2])  # angle of the tip from +z towards +x
        c, s = math.cos(a), math.sin(a)
        # Rotation about y by -a (x' = c x - s z, z' = s x + c z) brings the tip onto +z.
        turn = np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]])
        v = v @ turn.T
    base = v[v[:, 1] < 0.25 * h]
    radius = float(np.hypot(base[:, 0], base[:, 2]).max())
    return v, turn, float(h), radius


def mesh2_text(name, v, faces, normals):
    """`#declare name = mesh2 {...}` with per-corner normals (deduplicated)."""
    nk = np.round(normals.reshape(-1, 3), 4)
    uniq, inv = np.unique(nk, axis=0, return_inverse=True)
    inv = inv.reshape(-1, 3)
    out = [f"#declare {name} = mesh2 {{", f"  vertex_vectors {{ {len(v)},"]
    out.append(",\n".join(f"    <{a:.5g},{b:.5g},{c:.5g}>" for a, b, c in v))
    out.append("  }")
    out.append(f"  normal_vectors {{ {len(uniq)},")
    out.append(",\n".join(f"    <{a:.4g},{b:.4g},{c:.4g}>" for a, b, c in uniq))
    out.append("  }")
    out.append(f"  face_indices {{ {len(faces)},")
    out.append(",\n".join(f"    <{a},{b},{c}>" for a, b, c in faces))
    out.append("  }")
    out.append(f"  normal_indices {{ {len(faces)},")
    out.append(",\n".join(f"    <{a},{b},{c}>" for a, b, c in inv))
    out.append("  }\n}\n")
    return "\n".join(out)


def convert_piece(path, name, knight=False):
    """(mesh2 text, height, base radius) of one OBJ or DCM piece."""
    path = Path(path)
    if path.suffix == ".dcm":
        v, vn, faces = read_dcm(path)
        v, turn, h, r = normalise_frame(v, knight)
        vn = vn @ turn.T
        vn /= np.maximum(np.linalg.norm(vn, axis=1), 1e-20)[:, None]
        normals = vn[faces]
    else:
        v, faces = read_obj(path)
        v, faces = weld(v, faces)
        area = np.linalg.norm(np.cross(v[faces[:, 1]] - v[faces[:, 0]],
                                       v[faces[:, 2]] - v[faces[:, 0]]), axis=1)
        faces = faces[area > 1e-12]
        v, turn, h, r = normalise_frame(v, knight)
        normals = corner_normals(v, faces)
    return mesh2_text(name, v, faces, normals), h, r


def convert_set(files, prefix):
    """Include text declaring `{prefix}Pawn` ... `{prefix}King` and a dict
    type letter -> (height, base radius). files: type letter (PNBRQK) -> path."""
    names = dict(P="Pawn", N="Knight", B="Bishop", R="Rook", Q="Queen", K="King")
    texts, dims = [], {}
    for t, path in files.items():
        text, h, r = convert_piece(path, prefix + names[t], knight=(t == "N"))
        texts.append(text)
        dims[t] = (h, r)
    return "\n".join(texts), dims


if __name__ == "__main__":
    for p in sys.argv[1:]:
        text, h, r = convert_piece(p, "Piece")
        print(f"{p}: height {h:.4g}, base radius {r:.4g}, {len(text)} chars")
