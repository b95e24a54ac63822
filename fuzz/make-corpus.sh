#!/bin/sh
# Rebuild fuzz/corpus/ from the real traces and the bad-input cases of
# tests/traces/.  Needs a built slabsim (SLABSIM=path, default build/slabsim).
# Keep it small: a few dozen files, < 200 KiB in all.
set -eu
cd "$(dirname "$0")/.."
SLABSIM=${SLABSIM:-build/slabsim}
C=fuzz/corpus
rm -rf "$C"; mkdir -p "$C"
S=traces/samples
# slices of the real traces (header included for the ftrace ones)
zcat $S/hackbench-T-g2-l50.trace.gz | head -60 > $C/hackbench-head.trace
zcat $S/hackbench-T-g2-l50.trace.gz | sed -n '90000,90040p' > $C/hackbench-mid.trace
zcat $S/udp-4k.trace.gz | sed -n '1000,1060p' > $C/udp-mid.trace
zcat $S/hackbench-T-g1-l50.perf-script.gz | head -50 > $C/perf-head.txt
zcat $S/hackbench-T-g1-l50.perf-script.gz | sed -n '40000,40040p' > $C/perf-mid.txt
gzip -9 -n -c $C/udp-mid.trace > $C/udp-mid.trace.gz
head -c 700 $C/udp-mid.trace.gz > $C/truncated.gz
"$SLABSIM" trace convert $C/hackbench-head.trace -o $C/hackbench-head.slabsim >/dev/null
"$SLABSIM" trace convert $C/perf-mid.txt -o $C/perf-mid.slabsim >/dev/null
head -c 2000 $C/perf-mid.slabsim > $C/native-cut.slabsim
# a flipped byte in the first event block
python3 - "$C" <<'PY'
import sys
d = sys.argv[1]
b = bytearray(open(d + '/hackbench-head.slabsim', 'rb').read())
b[len(b) // 2] ^= 0x40
open(d + '/native-flip.slabsim', 'wb').write(b)
b = bytearray(open(d + '/hackbench-head.slabsim', 'rb').read())
b[8] = 7
open(d + '/native-version.slabsim', 'wb').write(b)
import random
r = random.Random(1)
open(d + '/garbage.bin', 'wb').write(bytes(r.randrange(256) for _ in range(512)))
PY
# every era's line forms and the bad-input cases
pr () { printf '%s\n' "$2" > "$C/$1"; }
pr era-2.6.3x.trace '            bash-2013  [001]  1234.567890: kmalloc: call_site=ffffffff8110a2b3 ptr=ffff88003d8e4000 bytes_req=300 bytes_alloc=512 gfp_flags=GFP_KERNEL
            bash-2013  [001]  1234.567891: kmalloc_node: call_site=ffffffff8110a2b3 ptr=ffff88003d8e4400 bytes_req=100 bytes_alloc=128 gfp_flags=GFP_KERNEL|GFP_ZERO node=0
            bash-2013  [000]  1234.567892: kmem_cache_alloc_node: call_site=ffffffff81234567 ptr=ffff88003d8e5000 bytes_req=192 bytes_alloc=192 gfp_flags=GFP_ATOMIC node=1
            bash-2013  [001]  1234.567893: kfree: call_site=ffffffff8110a300 ptr=(null)
            bash-2013  [001]  1234.567893: kfree: call_site=ffffffff8110a300 ptr=  (null)
          <idle>-0     [000]  1234.567895: mm_page_free_direct: page=ffffea0000d6a1c0 pfn=3516935 order=0
          <idle>-0     [000]  1234.567896: mm_pagevec_free: page=ffffea0000d6a200 pfn=3516936 order=0 cold=0'
pr era-5.x.trace '  kworker/0:1H-123   [000] d..1   512.000100: kmalloc: call_site=__alloc_skb+0x87/0x1d0 ptr=ffff9a0b3c4d5e00 bytes_req=640 bytes_alloc=1024 gfp_flags=GFP_ATOMIC|__GFP_NOWARN
  Web Content-4001   [001] ....   512.000200: kfree: call_site=skb_release_data+0x10e/0x150 [xt_foo] ptr=ffff9a0b3c4d5e00
  Web Content-4001   [001] ....   512.000201: kmem_cache_free: call_site=kfree_skbmem+0x4e/0x60 ptr=ffff9a0b3c4d6000 name=skbuff_head_cache'
pr trace-cmd.txt 'version = 6
CPU 1 is empty
cpus=2
            bash-1234  [000]  5000.000001: kmalloc:              call_site=__kmalloc+0x10 ptr=0xffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL
            bash-1234  [000]  5000.000002: kfree:                call_site=kfree_rcu+0x1 ptr=0xffff888100000000'
pr perf-nulls.txt '            perf 31103 [001]  1637.361340:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=(nil)
            perf 31103 [001]  1637.361341:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0
            bash  1/77 [001]  1637.361342:            kmem:kfree: call_site=x+0x1 ptr=0xffff888100000000
            perf 31103 [001]  1637.361343: PERF_RECORD_LOST lost 17
            perf 31103 [001]  1637.361344:            kmem:rss_stat: mm_id=1 curr=1 type=MM_FILEPAGES size=4096B'
pr lost.trace 'CPU:1 [LOST 42 EVENTS]
  bash-1  [001] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=0000000000000000'
pr hashed.trace '  cat-4242 [003] ..... 4582.696626: kmem_cache_alloc: call_site=getname_flags+0x47/0x1f0 ptr=00000000e70e10e0 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false'
pr bad-field.trace '  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=abc bytes_alloc=8 gfp_flags=GFP_KERNEL'
pr bad-negative.trace '  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=8 bytes_alloc=-64 gfp_flags=GFP_KERNEL'
pr bad-ptr.trace '  bash-1  [000] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=ffffffffffffffffff'
pr bad-unknown-event.trace '  bash-1  [000] .....   1.000002: kmem_cache_alloc_bulk: call_site=a ptr=ffff888100000000 size=8'
printf '  bash-1  [000] .....   1.000003: kmalloc: call_site=a+0x1/0x2 ptr=ffff8881' > $C/bad-cut-line.trace
pr no-events.txt 'hello world'
printf '' > $C/empty
ls $C | wc -l; du -sb $C

# fuzz-run's corpus: some of the traces above, each behind a first byte
# that picks allocator/era, machine and replay flags (fuzz/fuzz-run.c), so
# that every model and era meets both machines; plus kmallocs at the
# models' limits and perf lines without a CPU.
R=fuzz/corpus-run
rm -rf "$R"; mkdir -p "$R"
pr limits.trace '  bash-1  [000] .....   1.000001: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 bytes_req=4194304 bytes_alloc=4194304 gfp_flags=GFP_KERNEL
  bash-1  [001] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888200000000 bytes_req=4194305 bytes_alloc=8388608 gfp_flags=GFP_KERNEL
  bash-1  [002] .....   1.000003: kmalloc: call_site=a+0x1/0x2 ptr=ffff888300000000 bytes_req=2097153 bytes_alloc=4194304 gfp_flags=GFP_KERNEL
  bash-1  [003] .....   1.000004: kmalloc: call_site=a+0x1/0x2 ptr=ffff888400000000 bytes_req=4294967360 bytes_alloc=4294967360 gfp_flags=GFP_KERNEL
  bash-1  [000] .....   1.000005: kfree: call_site=a+0x1/0x2 ptr=ffff888200000000
  bash-1  [001] .....   1.000006: kmalloc: call_site=a+0x1/0x2 ptr=ffff888300000000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL
  bash-1  [002] .....   1.000007: kfree: call_site=a+0x1/0x2 ptr=ffff888100000000
  bash-1  [003] .....   1.000008: kfree: call_site=a+0x1/0x2 ptr=ffff888300000000
  bash-1  [000] .....   1.000009: kfree: call_site=a+0x1/0x2 ptr=ffff888400000000'
pr nocpu.txt '            perf 31103  1637.361340:            kmem:kmalloc: call_site=a+0x1 ptr=0xffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL
            perf 31103  1637.361341:            kmem:kmem_cache_alloc: call_site=a+0x1 ptr=0xffff888100000100 bytes_req=192 bytes_alloc=192 gfp_flags=GFP_KERNEL name=vm_area_struct
            perf 31103  1637.361342:            kmem:kfree: call_site=a+0x1 ptr=0xffff888100000000
            perf 31103  1637.361343:            kmem:kmem_cache_free: call_site=a+0x1 ptr=0xffff888100000100 name=vm_area_struct'
python3 - "$C" "$R" <<'PY'
import sys
c, r = sys.argv[1], sys.argv[2]
seeds = ['hackbench-head.trace', 'hackbench-mid.trace', 'udp-mid.trace', 'udp-mid.trace.gz',
         'perf-head.txt', 'perf-mid.txt', 'era-2.6.3x.trace', 'era-5.x.trace', 'trace-cmd.txt',
         'perf-nulls.txt', 'hashed.trace', 'hackbench-head.slabsim', 'limits.trace', 'nocpu.txt']
for k, name in enumerate(seeds):
    data = open(c + '/' + name, 'rb').read()
    for j in range(2):
        # 7 models x 2 machines = 14 selectors, then the flag bits
        b = ((2 * k + j) % 14) + 14 * ((k + j) % 8)
        open('%s/%02x-%s' % (r, b, name), 'wb').write(bytes([b]) + data)
PY
rm -f $C/limits.trace $C/nocpu.txt
ls $R | wc -l; du -sb $R
