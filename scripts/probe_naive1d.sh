# probe: naive-1d and naive-rows against the speed model over sizes, and DRAM/L2 write counters (one tar under $OUT)
SIZES=${SIZES-8192 12288 16000 16384 16448 20480}
mkdir -p /tmp/p
for s in $SIZES; do
  python3 -m cornerturn.cli lab --size $s --kernels copy,naive-1d,naive-rows --constants H100 --repeats 7 --json /tmp/p/lab-$s.json --no-progress > /tmp/p/lab-$s.txt 2>&1 || echo "lab $s failed"
done
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum
for s in ${NCU_SIZES:-8192 16000 16384}; do for k in naive-1d naive-rows; do
  ncu --clock-control none --launch-count 1 --csv --metrics $M python3 -m cornerturn.lab.profile $k $s $s float32 > /tmp/p/ncu-$k-$s.csv 2>&1
done; done
nvidia-smi --query-gpu=name --format=csv > /tmp/p/gpu.txt
tar -C /tmp/p -czf $OUT/probe.tgz .
