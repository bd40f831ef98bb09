"""Largest batch whose memory stays within a budget, in few probes.

Shared by rc_nets.py (LeanCaffe's plan) and torch_peak.py (PyTorch's
measured peak). A probe can cost a whole training step at a large batch, so
the search does not bisect blindly: memory grows almost linearly with the
batch, and a secant through the nearest known points usually lands on the
answer, which the next probe (one batch above) confirms. Bisection takes
over whenever a secant step fails to narrow the bracket by half.

Contract: probe(batch) returns bytes and is assumed non-decreasing in the
batch; largest_fitting returns the largest batch in [lo, hi] whose probe is
<= budget, with the probes made on the way.
"""


def _secant_guess(points, budget):
    """Batch where the line through the two known points closest to the
    budget reaches it (a proportional guess from a single point)."""
    pts = sorted(points, key=lambda p: abs(p[1] - budget))[:2]
    if len(pts) == 1 or pts[0][0] == pts[1][0] or pts[0][1] == pts[1][1]:
        b, v = pts[0]
        return int(b * budget / v) if v > 0 else 2 * b
    (b0, v0), (b1, v1) = pts
    slope = (v1 - v0) / float(b1 - b0)
    if slope <= 0:
        return None
    return b0 + int((budget - v0) // slope)


def largest_fitting(probe, budget, lo, hi, max_probes=16):
    """Returns a dict: best (largest fitting batch, None when even lo does
    not fit), best_bytes, over (smallest batch known not to fit, None when
    hi fits), over_bytes, probes [(batch, bytes)], exact (False when
    max_probes ran out before the bracket closed)."""
    if lo < 1 or hi < lo:
        raise ValueError("batch bounds must satisfy 1 <= lo <= hi, not "
                         "%d..%d" % (lo, hi))
    known = {}

    def measure(b):
        if b not in known:
            known[b] = probe(b)
        return known[b]

    fit, over = None, None
    if measure(lo) <= budget:
        fit = lo
    else:
        over = lo
    width = None
    while fit is not None and fit < hi and (over is None or over - fit > 1):
        if len(known) >= max_probes:
            break
        if over is None:
            # Open above: extrapolate, but at most 4x the largest fitting
            # batch, so that a flat start cannot send a probe far out.
            guess = _secant_guess(list(known.items()), budget)
            guess = min(hi, 4 * fit, max(fit + 1, guess or 2 * fit))
        else:
            upper = over - 1
            guess = _secant_guess(list(known.items()), budget)
            new_width = upper - fit
            if guess is None or (width is not None and new_width > width / 2):
                guess = (fit + upper + 1) // 2           # bisect
            width = new_width
            guess = max(fit + 1, min(upper, guess))
        if measure(guess) <= budget:
            fit = guess
        else:
            over = guess
    return {
        "best": fit, "best_bytes": known.get(fit),
        "over": over, "over_bytes": known.get(over),
        "probes": sorted(known.items()),
        "exact": fit is None or fit == hi or (over is not None and
                                              over - fit == 1),
    }
