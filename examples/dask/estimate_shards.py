#!/usr/bin/env python3
"""Estimate a fleet's logs on a Dask cluster: one `sparsedyn estimate` process per shard, one Parquet
part per shard, the parts read back as one table.

Two ways to shard:
  --logs DIR          one task per log file in DIR (NDJSON, CSV, MCAP or Parquet logs)
  --log FILE          one long NDJSON or CSV log cut by time range into --shards shards of whole,
                      consecutive rows; each task cuts its own byte range out of the file

Each task runs `sparsedyn estimate PROBLEM --data SHARD --out OUT/PART.parquet --no-html` (exit 0, or 3
when rows were skipped: both are success; `--format ndjson` or `csv` writes the parts in that format).
A part's name is fixed by its shard, and sparsedyn writes it under a temporary name and renames it
when the run is complete, so a task that is retried (an error: Dask's `retries=`; a worker that died:
Dask runs its tasks again elsewhere) replaces its part whole, and each part exists once. OUT/parts.json lists the parts, their sources and the offset that turns a
part's `line` into the line of the source log.

A shard cut by time range starts at a multiple of 128 rows, where one run returns its sparse LU to its
initial row order, so its estimates are one run's, bit for bit. A log whose values are derived from
positions over time (no `v` in its rows, or joint accelerations to derive) is not cut by time range: a
fit at a shard's first and last rows would see one side only, unlike one run's. Exact shards would
need an overlap of a whole window at each end, estimated and dropped, and the same derivation plan in
every shard (its sample period is judged from a run's first 64 samples); this recipe refuses, naming
the window. So does a problem whose contact detection has memory (two thresholds, a minimum
duration). Shard such logs by file.

Needs Python with Dask's `distributed` (Debian: `apt-get install python3-distributed`, then run it with
/usr/bin/python3; elsewhere `pip install distributed`), and sparsedyn on every worker (--sparsedyn). The
problem, the logs and OUT must be at the same paths on every worker (a shared file system).

  python3 estimate_shards.py PROBLEM --logs DIR --out OUT [--scheduler tcp://HOST:PORT] [-- ESTIMATE OPTIONS]
  python3 estimate_shards.py PROBLEM --log FILE --shards 8 --out OUT [--scheduler ...]

Without --scheduler a local cluster of --workers processes (one thread each) is started for the run.
"""
import argparse
import ctypes
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

LOG_EXTENSIONS = ('.ndjson', '.jsonl', '.csv', '.mcap', '.parquet')
OK_CODES = (0, 3)  # 3: estimated, some rows skipped (their reasons in the part's report)
PROBE_ROWS = 200  # rows a probe estimates: more than sparsedyn reads to plan the derivatives (64)
CHUNK = 1 << 24
RESTART_ROWS = 128  # rows after which one sparsedyn run returns its LU to its initial row order
FORMATS = ('parquet', 'ndjson', 'csv')


def _die_with_worker():
    """What a child runs first: to be killed when the worker that started it dies (Linux), so that no orphan finishes a part late."""
    if not sys.platform.startswith('linux'):
        return None
    prctl = ctypes.CDLL(None).prctl
    return lambda: prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


def _summary_counts(stderr):
    m = re.search(r'samples estimated (\d+), rows skipped (\d+)', stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def _run_estimate(sparsedyn, problem, data, out, options, fmt=None):
    # one thread per task: the cluster's workers are the parallelism (unless the options say otherwise)
    jobs = [] if any(o == '--jobs' or o.startswith('--jobs=') for o in options) else ['--jobs', '1']
    # the problem's offline work (analysis, orderings, calibrations) done once per worker machine, not once per shard
    cache = [] if any(o == '--cache' or o.startswith('--cache=') for o in options) else ['--cache', os.path.join(tempfile.gettempdir(), 'sparsedyn-offline-cache')]
    cmd = [*sparsedyn, 'estimate', problem, '--data', data, '--out', out, *(['--format', fmt] if fmt else []), '--no-html', *jobs, *cache, *options]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_die_with_worker())
    if r.returncode not in OK_CODES:
        raise RuntimeError(f'{shlex.join(cmd)} exited with {r.returncode}:\n{r.stderr[-2000:]}')
    return r


def _copy_range(src, start, end, dst, header=b''):
    """Write bytes [start, end) of the file src (after `header`) to the file dst."""
    with open(src, 'rb') as f, open(dst, 'wb') as g:
        g.write(header)
        f.seek(start)
        left = end - start
        while left > 0:
            b = f.read(min(CHUNK, left))
            if not b:
                break
            g.write(b)
            left -= len(b)


def estimate_shard(sparsedyn, problem, shard, part, options, fmt='parquet'):
    """One task: estimate a shard (a whole log, or a byte range of one) into the file `part` (format `fmt`)."""
    tmp = None
    data = shard['path']
    try:
        if 'start' in shard:
            tmp = tempfile.mkdtemp(prefix='sparsedyn-shard-')
            data = os.path.join(tmp, os.path.splitext(os.path.basename(part))[0] + shard['ext'])
            _copy_range(shard['path'], shard['start'], shard['end'], data, shard['header'].encode('latin-1'))
        r = _run_estimate(sparsedyn, problem, data, part, options, fmt)
        estimated, skipped = _summary_counts(r.stderr)
        return {'part': os.path.basename(part), 'code': r.returncode, 'estimated': estimated, 'skipped': skipped}
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def probe_derivation(sparsedyn, problem, shard, options):
    """A task: estimate the log's first rows; the fit window (samples) when it derives velocities, else None."""
    tmp = tempfile.mkdtemp(prefix='sparsedyn-probe-')
    try:
        data = os.path.join(tmp, 'probe' + shard['ext'])
        _copy_range(shard['path'], shard['start'], shard['end'], data)
        r = _run_estimate(sparsedyn, problem, data, '-', options)
        m = re.search(r'derived from the log over time: .*? over (\d+) samples', r.stderr)
        return int(m.group(1)) if m else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _contact_detection_with_memory(problem):
    """The contact of the problem's first contact detection that follows the samples in order (hysteresis or a minimum duration), else None."""
    try:
        with open(problem, encoding='utf-8') as f:
            rules = json.load(f).get('contact_detection') or []
    except (OSError, ValueError, AttributeError):
        return None  # not a JSON object: sparsedyn says what is wrong with it
    for d in rules:
        if d.get('threshold') is None and d.get('on') != d.get('off') or (d.get('min_duration') or 0) > 0:
            return d.get('contact', '?')
    return None


def time_range_shards(log, n):
    """Cut an NDJSON or CSV log into about n shards of whole, consecutive rows, of about equal bytes.

    A shard starts at a multiple of RESTART_ROWS rows (blank lines are not rows; a CSV log's header is
    not one): one run returns its sparse LU to its initial row order there, so a shard's estimates are
    those of one run, bit for bit, even where the LU re-pivots (near a singular pose)."""
    size = os.path.getsize(log)
    with open(log, 'rb') as f:
        head = f.read(8)
        if head.startswith(b'\x89MCAP') or head.startswith(b'PAR1'):
            raise SystemExit(f'{log}: a binary log (MCAP or Parquet) is not cut by time range here: shard a fleet by file (--logs)')
        f.seek(0)
        first = f.readline()
        csv = not first.lstrip(b'\xef\xbb\xbf \t').startswith(b'{')
        header = first.decode('latin-1') if csv else ''
        if not csv:
            f.seek(0)
        targets = [size * k // n for k in range(1, n)]
        bounds, lines_before = [0], [0]
        pos, lines, rows, ti = (len(first), 1, 0, 0) if csv else (0, 0, 0, 0)
        for line in f:
            if csv and b'"' in line:
                raise SystemExit(f'{log}: a CSV log with quoted fields (which may span lines) is not cut by time range here: convert it to NDJSON, or shard by file')
            if line.strip(b' \t\r\n'):
                if rows > 0 and rows % RESTART_ROWS == 0 and ti < len(targets) and pos >= targets[ti]:
                    bounds.append(pos)
                    lines_before.append(lines)
                    while ti < len(targets) and targets[ti] <= pos:
                        ti += 1
                rows += 1
            lines += 1
            pos += len(line)
    bounds.append(size)
    ext = '.csv' if csv else '.ndjson'
    shards = []
    for k, (start, end) in enumerate(zip(bounds, bounds[1:])):
        hdr = header if csv and k > 0 else ''
        # `line` counts the shard's lines from 1; the header added in front of a CSV shard is one of them
        shards.append({'path': log, 'start': start, 'end': end, 'ext': ext, 'header': hdr, 'line_offset': lines_before[k] - (1 if hdr else 0)})
    return shards


def _probe_range(log, shard):
    """The first PROBE_ROWS lines of the log (its header included)."""
    with open(log, 'rb') as f:
        end = 0
        for _ in range(PROBE_ROWS + 1):
            line = f.readline()
            if not line:
                break
            end += len(line)
    return {'path': log, 'start': 0, 'end': end, 'ext': shard['ext']}


def file_shards(folder):
    logs = sorted(p for p in glob.glob(os.path.join(folder, '*')) if p.endswith(LOG_EXTENSIONS) and os.path.isfile(p))
    if not logs:
        raise SystemExit(f'{folder}: no log files ({", ".join(LOG_EXTENSIONS)})')
    return [{'path': p, 'line_offset': 0} for p in logs]


def part_names(shards, by_file, fmt='parquet'):
    """Each shard's part: a name fixed by the shard (a retried task writes the same file)."""
    if not by_file:
        return [f'part-{k:05d}.{fmt}' for k in range(len(shards))]
    names = [os.path.splitext(os.path.basename(s['path']))[0] + '.' + fmt for s in shards]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SystemExit(f'logs with the same name but another extension would write the same part: {", ".join(dup)}')
    return names


def run(client, problem, shards, out, by_file, sparsedyn, options, retries, fmt='parquet'):
    """Estimate every shard on the cluster; returns the manifest (also written to OUT/parts.json)."""
    os.makedirs(out, exist_ok=True)
    names = part_names(shards, by_file, fmt)
    stale = sorted(set(os.path.basename(p) for p in glob.glob(os.path.join(out, '*.' + fmt))) - set(names))
    if stale:
        raise SystemExit(f'{out} holds {fmt} files that are not parts of this run ({", ".join(stale[:3])}{", …" if len(stale) > 3 else ""}): they would be read with the parts; use an empty folder')
    if not by_file and len(shards) > 1:
        window = client.submit(probe_derivation, sparsedyn, problem, _probe_range(shards[0]['path'], shards[0]), options, retries=retries, pure=False).result()
        if window is not None:
            raise SystemExit(f'{shards[0]["path"]}: some of its values are derived from positions over time (local fits over {window} samples), so a shard cut '
                             f'by time range would differ from one run at its edges. Exact shards would need {window - 1} rows of overlap at each end (a fit is '
                             'shifted inside a stretch at gaps and ends), estimated and dropped, and the same plan in every shard (the sample period is judged from '
                             'a run\'s first 64 samples and sets the derived readings\' variances): not done here. Shard such logs by file (--logs), or estimate '
                             'the log in one process with --jobs')
        memory = _contact_detection_with_memory(problem)
        if memory:
            raise SystemExit(f'{problem}: the contact detection of "{memory}" has two thresholds or a minimum duration, so a sample\'s contacts depend on the '
                             'samples before it, which a shard cut by time range does not see: shard by file (--logs), or estimate the log in one process')
    futures = client.map(estimate_shard, [sparsedyn] * len(shards), [problem] * len(shards), shards, [os.path.join(out, n) for n in names],
                         [options] * len(shards), [fmt] * len(shards), key=[f'sparsedyn-estimate-{n}' for n in names], retries=retries, pure=False)
    results = client.gather(futures)
    # a task killed with its worker may have left its temporary file (its retry wrote the part)
    for n in names:
        for t in glob.glob(os.path.join(out, f'.{glob.escape(n)}.*.tmp')):
            os.remove(t)
    manifest = [{**r, 'source': s['path'], **({'start': s['start'], 'end': s['end']} if 'start' in s else {}), 'line_offset': s['line_offset']} for r, s in zip(results, shards)]
    tmp = os.path.join(out, '.parts.json.tmp')
    with open(tmp, 'w') as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(out, 'parts.json'))
    return manifest


def main(argv=None):
    p = argparse.ArgumentParser(description='Estimate logs on a Dask cluster, one sparsedyn process and one Parquet part per shard.')
    p.add_argument('problem', help='problem file (the same path on every worker)')
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument('--logs', help='a folder of logs: one task per log file')
    src.add_argument('--log', help='one long NDJSON or CSV log, cut by time range into --shards shards')
    p.add_argument('--shards', type=int, default=8, help='shards of --log (default 8)')
    p.add_argument('--out', required=True, help='folder of the parts (and parts.json)')
    p.add_argument('--format', choices=FORMATS, default='parquet', help='format of the parts (default parquet)')
    p.add_argument('--scheduler', help='address of a running Dask scheduler (default: a local cluster for the run)')
    p.add_argument('--workers', type=int, default=os.cpu_count() or 1, help='processes of the local cluster (default: the cores)')
    p.add_argument('--retries', type=int, default=2, help='times a failed task is run again (default 2)')
    p.add_argument('--sparsedyn', default='sparsedyn', help='the command that runs sparsedyn on a worker (default: sparsedyn; e.g. "node /opt/sparsedyn/bin/sparsedyn.mjs")')
    p.epilog = 'Options after -- go to every sparsedyn estimate (e.g. -- --no-condition).'
    # what follows `--` is sparsedyn's, taken apart here (argparse gives a trailing positional its empty list too early)
    argv = sys.argv[1:] if argv is None else list(argv)
    options = argv[argv.index('--') + 1:] if '--' in argv else []
    a = p.parse_args(argv[:argv.index('--')] if '--' in argv else argv)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SystemExit(f'{sys.executable}: no Dask "distributed" module for this Python (Debian: apt-get install python3-distributed and use /usr/bin/python3; else pip install distributed)')
    problem = os.path.abspath(a.problem)
    out = os.path.abspath(a.out)
    by_file = a.logs is not None
    shards = file_shards(os.path.abspath(a.logs)) if by_file else time_range_shards(os.path.abspath(a.log), max(1, a.shards))
    sparsedyn = shlex.split(a.sparsedyn)
    if a.scheduler:
        cluster, client = None, Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        manifest = run(client, problem, shards, out, by_file, sparsedyn, options, a.retries, a.format)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    estimated = sum(r['estimated'] or 0 for r in manifest)
    skipped = sum(r['skipped'] or 0 for r in manifest)
    print(f'{len(manifest)} parts in {a.out}: {estimated} samples estimated, {skipped} rows skipped'
          + (f' (in {sum(1 for r in manifest if r["skipped"])} parts: see their .report.md)' if skipped else ''))


if __name__ == '__main__':
    main()
