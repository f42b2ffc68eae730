"""Batched minimum-edit alignment of token sequences, with NIST sclite's costs and tie-breaking.

sclite (SCTK) aligns with weights correct 0, insertion 3, deletion 3, substitution 4. Walking back
from the last cell, it takes, among the moves that realise the optimal cost, the diagonal (match or
substitution) first, then the insertion, then the deletion; read left to right, a tie between a
deletion and an insertion therefore puts the deletion first. We reproduce that exactly, so the
per-utterance C/S/D/I and the positions of the errors equal sclite's (checked in
``tests/test_wer_sclite.py`` against the real ``sclite`` binary).

The dynamic programme runs in numpy over many utterances at once: utterances are sorted by length,
cut into blocks that fit a memory budget, and padded; inside a block each DP row is computed for
the whole block with one cumulative minimum (the insertion recurrence along a row is a running
minimum of ``D[i, k] - ins * k``). The traceback is vectorised the same way. No Python loop runs
per utterance or per cell.

Sequences are given as integer token codes (flat values + offsets), which keeps this module free of
strings and lets every family reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorehouse.scorers.edit import (  # noqa: F401  (the costs and op letters live there)
    LEVENSHTEIN,
    NULL,
    OP_CORRECT,
    OP_DELETION,
    OP_INSERTION,
    OP_SUBSTITUTION,
    SCLITE,
    Costs,
    align_with_null,
)


@dataclass
class Alignment:
    """Result of :func:`align`, for ``n`` sequence pairs, in flat (Arrow-like) layout.

    ``ops[op_offsets[k]:op_offsets[k+1]]`` are the op letters of pair ``k`` in alignment order;
    ``ref_index`` / ``hyp_index`` give, for each op, the position of the reference / hypothesis
    token inside the flat input arrays, or -1 for the gap side of an insertion / deletion.
    """

    ops: np.ndarray  # uint8 letters C/S/D/I
    op_offsets: np.ndarray  # int64, n + 1
    ref_index: np.ndarray | None  # flat index into the reference values, -1 for insertions
    hyp_index: np.ndarray | None  # flat index into the hypothesis values, -1 for deletions
    # (both int32 while the positions fit, else int64; None when not asked for)


def align(
    ref_values: np.ndarray,
    ref_offsets: np.ndarray,
    hyp_values: np.ndarray,
    hyp_offsets: np.ndarray,
    costs: Costs = SCLITE,
    cell_budget: int = 4_000_000,
    positions: bool = True,
) -> Alignment:
    """Align ``n`` pairs of integer sequences (pair k:
    ``ref_values[ref_offsets[k]:ref_offsets[k+1]]`` against the same slice of ``hyp_values``) and
    return every pair's alignment (without the tokens' positions unless ``positions``)."""
    ref_offsets = np.asarray(ref_offsets, dtype=np.int64)
    hyp_offsets = np.asarray(hyp_offsets, dtype=np.int64)
    n = len(ref_offsets) - 1
    if len(hyp_offsets) - 1 != n:
        raise ValueError("reference and hypothesis offsets describe different numbers of pairs")
    full_ref_len = np.diff(ref_offsets)
    full_hyp_len = np.diff(hyp_offsets)
    steps = full_ref_len + full_hyp_len  # upper bound of the alignment length
    # Reverse-ordered op buffers, one slot per possible step, filled per block.
    slot_offsets = np.concatenate([[0], np.cumsum(steps)])
    ops_buf = np.zeros(slot_offsets[-1], dtype=np.uint8)
    # token positions: 4 bytes each while they fit (half the memory of the biggest buffers)
    index = np.int32 if max(len(ref_values), len(hyp_values)) < 2**31 else np.int64
    ref_buf = np.full(slot_offsets[-1], -1, dtype=index) if positions else None
    hyp_buf = np.full(slot_offsets[-1], -1, dtype=index) if positions else None
    # A common suffix is matched as sclite's traceback matches it (first slots, last token
    # first); only what precedes it needs the DP.
    used = _common_suffix(ref_values, ref_offsets, full_ref_len, hyp_values, hyp_offsets,
                          full_hyp_len, slot_offsets, ops_buf, ref_buf, hyp_buf)
    ref_len = full_ref_len - used
    hyp_len = full_hyp_len - used

    order = np.lexsort((hyp_len, ref_len))
    order = order[(ref_len[order] + hyp_len[order]) > 0]  # the rest is aligned already
    n_left = len(order)
    start = 0
    scratch = [np.empty(0, dtype=np.uint8)]  # the DP matrices' memory, reused block after block
    while start < n_left:
        # Grow the block while its padded DP matrix fits the budget.
        first = order[start]
        block_hint = max(1, cell_budget // ((ref_len[first] + 1) * (hyp_len[first] + 1)))
        idx = order[start:start + block_hint]
        r_max = int(ref_len[idx].max())
        h_max = int(hyp_len[idx].max())
        while len(idx) > 1 and len(idx) * (r_max + 1) * (h_max + 1) > cell_budget:
            idx = idx[: max(1, len(idx) // 2)]
            r_max = int(ref_len[idx].max())
            h_max = int(hyp_len[idx].max())
        _align_block(idx, ref_values, ref_offsets, ref_len, hyp_values, hyp_offsets, hyp_len,
                     r_max, h_max, costs, slot_offsets, ops_buf, ref_buf, hyp_buf, used,
                     scratch)
        start += len(idx)

    # Compact: each pair used ``used[k]`` slots from the start of its region, in reverse order:
    # op r of pair k is slot slot_offsets[k] + used[k] - 1 - r = last[k] - (op_offsets[k] + r).
    op_offsets = np.concatenate([[0], np.cumsum(used)])
    slot = np.int32 if slot_offsets[-1] < 2**31 else np.int64
    last = (slot_offsets[:-1] + used - 1 + op_offsets[:-1]).astype(slot)
    src = np.repeat(last, used)
    src -= np.arange(op_offsets[-1], dtype=slot)
    return Alignment(ops=ops_buf[src], op_offsets=op_offsets,
                     ref_index=ref_buf[src] if positions else None,
                     hyp_index=hyp_buf[src] if positions else None)


def _align_block(idx, ref_values, ref_offsets, ref_len, hyp_values, hyp_offsets, hyp_len,
                 r_max, h_max, costs, slot_offsets, ops_buf, ref_buf, hyp_buf, used, scratch):
    """Fill the DP matrix for the pairs ``idx`` at once, then trace every pair back."""
    b = len(idx)
    ins, dele, sub = costs.insertion, costs.deletion, costs.substitution
    ref = _pad(ref_values, ref_offsets[idx], ref_len[idx], r_max, fill=-1)
    hyp = _pad(hyp_values, hyp_offsets[idx], hyp_len[idx], h_max, fill=-2)
    # The largest cost is below (r_max + h_max) * max cost: int16 halves the memory traffic.
    dtype = (np.int16 if (r_max + h_max + 1) * max(ins, dele, sub) < np.iinfo(np.int16).max
             else np.int32)
    cols = np.arange(h_max + 1, dtype=dtype)
    # row-major over the DP rows: row i of every pair of the block is one contiguous (b, h) slab
    cells = (r_max + 1) * b * (h_max + 1)
    if scratch[0].size < cells * np.dtype(dtype).itemsize:
        scratch[0] = np.empty(cells * np.dtype(dtype).itemsize, dtype=np.uint8)
    dp = scratch[0][:cells * np.dtype(dtype).itemsize].view(dtype).reshape(r_max + 1, b,
                                                                           h_max + 1)
    dp[0] = cols * ins
    ramp = cols[1:] * ins
    ref_rows = np.ascontiguousarray(ref.T)
    hyp_cols = hyp[:, :h_max]
    best = np.empty((b, h_max), dtype=dtype)
    up = np.empty((b, h_max), dtype=dtype)
    differ = np.empty((b, h_max), dtype=bool)
    for i in range(1, r_max + 1):
        np.not_equal(ref_rows[i - 1][:, None], hyp_cols, out=differ)
        np.multiply(differ, dtype(sub), out=best)  # substitution or match
        best += dp[i - 1, :, :-1]
        np.add(dp[i - 1, :, 1:], dele, out=up, dtype=dtype, casting="unsafe")
        np.minimum(best, up, out=best)
        dp[i, :, 0] = i * dele
        # D[i, j] = min_k<=j (best'[k] + ins * (j - k)) with best'[0] = D[i, 0]
        best -= ramp
        np.minimum(best, i * dele, out=best)
        np.minimum.accumulate(best, axis=1, out=best)
        np.add(best, ramp, out=dp[i, :, 1:])

    # Traceback from (R_k, H_k), preferring diagonal, then insertion, then deletion (sclite),
    # after the ``used[k]`` slots of the common suffix.
    rows = np.arange(b)
    i = ref_len[idx].astype(np.int64)
    j = hyp_len[idx].astype(np.int64)
    base = slot_offsets[idx]
    step = used[idx].copy()
    active = (i > 0) | (j > 0)
    while active.any():
        a = np.flatnonzero(active)
        ia, ja = i[a], j[a]
        here = dp[ia, rows[a], ja]
        can_diag = (ia > 0) & (ja > 0)
        im1 = np.maximum(ia - 1, 0)
        jm1 = np.maximum(ja - 1, 0)
        same = ref[rows[a], im1] == hyp[rows[a], jm1]
        diag_cost = dp[im1, rows[a], jm1] + np.where(same, 0, sub)
        take_diag = can_diag & (here == diag_cost)
        take_ins = ~take_diag & (ja > 0) & (here == dp[ia, rows[a], jm1] + ins)
        take_del = ~take_diag & ~take_ins
        op = np.where(take_diag, np.where(same, OP_CORRECT, OP_SUBSTITUTION),
                      np.where(take_del, OP_DELETION, OP_INSERTION)).astype(np.uint8)
        slot = base[a] + step[a]
        ops_buf[slot] = op
        if ref_buf is not None:
            ref_buf[slot] = np.where(take_ins, -1, ref_offsets[idx[a]] + im1)
            hyp_buf[slot] = np.where(take_del, -1, hyp_offsets[idx[a]] + jm1)
        i[a] = np.where(take_ins, ia, im1)
        j[a] = np.where(take_del, ja, jm1)
        step[a] += 1
        active[a] = (i[a] > 0) | (j[a] > 0)
    used[idx] = step


def _common_suffix(ref_values, ref_offsets, ref_len, hyp_values, hyp_offsets, hyp_len,
                   slot_offsets, ops_buf, ref_buf, hyp_buf) -> np.ndarray:
    """The length of each pair's common suffix, written as correct ops in the pair's first slots.

    sclite's traceback takes the diagonal wherever the tokens are equal at the end of both sides:
    with a match costing 0, an optimal alignment of ``a[:i]``, ``b[:j]`` with ``a[i-1] == b[j-1]``
    can always match them (exchange the op that takes either for the match: the cost does not
    grow), so ``D[i, j] = D[i-1, j-1]`` and the diagonal is the first move tried. The DP of what
    precedes the suffix is the same as in the whole matrix (a DP cell depends on the cells
    above and to its left only)."""
    n = len(ref_len)
    suffix = np.zeros(n, dtype=np.int64)
    active = np.flatnonzero((ref_len > 0) & (hyp_len > 0))
    r = ref_offsets[active + 1] - 1  # the positions compared, walking back together
    h = hyp_offsets[active + 1] - 1
    room = np.minimum(ref_len[active], hyp_len[active])
    slot = slot_offsets[active]
    k = 0
    while len(active):
        same = ref_values[r] == hyp_values[h]
        matched = slot[same] + k
        ops_buf[matched] = OP_CORRECT
        if ref_buf is not None:
            ref_buf[matched] = r[same]
            hyp_buf[matched] = h[same]
        k += 1
        suffix[active[same]] = k
        go = same & (room > k)
        active, r, h, room, slot = active[go], r[go] - 1, h[go] - 1, room[go], slot[go]
    return suffix


def _pad(values, offsets, lengths, width, fill):
    """Gather variable-length slices into a (len(offsets), max(width, 1)) matrix padded with
    ``fill`` (at least one column, so that the traceback may read an empty side safely)."""
    out = np.full((len(offsets), max(width, 1)), fill,
                  dtype=values.dtype if values.dtype.kind == "i" else np.int64)
    col = np.arange(width)
    mask = col[None, :] < lengths[:, None]
    src = offsets[:, None] + col[None, :]
    out[:, :width][mask] = values[src[mask]]
    return out


def with_null(result: Alignment, ref_values, ref_offsets, hyp_values, hyp_offsets, null: int,
              costs: Costs = SCLITE) -> Alignment:
    """``result`` (:func:`align`'s) with every pair that holds the code ``null`` (sclite's empty
    word ``@``) aligned again as :func:`scorers.edit.align_with_null` aligns it: the empty word's
    own moves left out, its 0.001 cost steering the ties as in sclite. A rare word: those pairs
    only are aligned again, one by one."""
    n = len(ref_offsets) - 1
    has = np.zeros(n, dtype=bool)
    for values, offsets in ((ref_values, ref_offsets), (hyp_values, hyp_offsets)):
        has[np.repeat(np.arange(n), np.diff(offsets))[values == null]] = True
    if not has.any():
        return result
    again = {int(k): align_with_null(ref_values[ref_offsets[k]:ref_offsets[k + 1]].tolist(),
                                     hyp_values[hyp_offsets[k]:hyp_offsets[k + 1]].tolist(),
                                     costs, null) for k in np.flatnonzero(has)}
    old_offsets = result.op_offsets
    lengths = np.diff(old_offsets)
    for k, (ops, _, _) in again.items():
        lengths[k] = len(ops)
    op_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(old_offsets.dtype)
    old_pair = np.repeat(np.arange(n), np.diff(old_offsets))
    keep = ~has[old_pair]
    dest = (op_offsets[old_pair] + np.arange(len(old_pair)) - old_offsets[old_pair])[keep]
    ops = np.empty(op_offsets[-1], dtype=np.uint8)
    ops[dest] = result.ops[keep]
    positions = result.ref_index is not None
    index = result.ref_index.dtype if positions else np.int64
    ref_index = np.full(op_offsets[-1], -1, dtype=index) if positions else None
    hyp_index = np.full(op_offsets[-1], -1, dtype=index) if positions else None
    if positions:
        ref_index[dest] = result.ref_index[keep]
        hyp_index[dest] = result.hyp_index[keep]
    for k, (letters, ref_at, hyp_at) in again.items():
        start, end = op_offsets[k], op_offsets[k + 1]
        ops[start:end] = np.frombuffer(letters.encode("ascii"), dtype=np.uint8)
        if positions:
            ref_at, hyp_at = np.asarray(ref_at, dtype=np.int64), np.asarray(hyp_at, np.int64)
            ref_index[start:end] = np.where(ref_at >= 0, ref_offsets[k] + ref_at, -1)
            hyp_index[start:end] = np.where(hyp_at >= 0, hyp_offsets[k] + hyp_at, -1)
    return Alignment(ops=ops, op_offsets=op_offsets, ref_index=ref_index, hyp_index=hyp_index)

