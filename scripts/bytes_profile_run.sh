python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 COLUMNS=250 || exit
nvidia-smi --query-gpu=name,driver_version --format=csv
python3 scripts/bytes_profile.py abcdefghi time $OUT/time.json 2>&1 | tail -20
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for k in a c d i f g; do
  timeout 120 ncu --clock-control none -k regex:transpose --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --metrics $M python3 scripts/bytes_profile.py $k ncu > $OUT/ncu-$k.txt 2>&1
  echo "== $k"; grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Block Size|Grid Size|sectors|requests|inst_executed|bytes|Shared Memory Config|Dynamic Shared|Static Shared|bank" $OUT/ncu-$k.txt | head -40
done
