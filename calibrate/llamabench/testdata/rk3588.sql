CREATE TABLE IF NOT EXISTS llama_bench (
  build_commit TEXT,
  build_number INTEGER,
  cpu_info TEXT,
  gpu_info TEXT,
  backends TEXT,
  model_filename TEXT,
  model_type TEXT,
  model_size INTEGER,
  model_n_params INTEGER,
  n_batch INTEGER,
  n_ubatch INTEGER,
  n_threads INTEGER,
  cpu_mask TEXT,
  cpu_strict INTEGER,
  poll INTEGER,
  type_k TEXT,
  type_v TEXT,
  n_gpu_layers INTEGER,
  n_cpu_moe INTEGER,
  split_mode TEXT,
  main_gpu INTEGER,
  no_kv_offload INTEGER,
  flash_attn INTEGER,
  devices TEXT,
  tensor_split TEXT,
  tensor_buft_overrides TEXT,
  load_mode TEXT,
  embeddings INTEGER,
  no_op_offload INTEGER,
  no_host INTEGER,
  fit_target INTEGER,
  fit_min_ctx INTEGER,
  n_prompt INTEGER,
  n_gen INTEGER,
  n_depth INTEGER,
  test_time TEXT,
  avg_ns INTEGER,
  stddev_ns INTEGER,
  avg_ts REAL,
  stddev_ts REAL
);

INSERT INTO llama_bench (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, load_mode, embeddings, no_op_offload, no_host, fit_target, fit_min_ctx, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('0104b151', '7950', 'CPU', '', 'CPU', '/models/Qwen3.5-35B-A3B-Q4_K_M.gguf', 'qwen35moe 35B.A3B Q4_K - Medium', '21163225088', '34660610048', '2048', '512', '4', '0xf0', '1', '50', 'f16', 'f16', '-1', '0', 'layer', '0', '0', '-1', 'auto', '0.00', 'none', 'mmap', '0', '0', '0', '0', '0', '512', '0', '0', '2026-11-28T09:14:03Z', '19497661204', '89254260', '26.260000', '0.120208');
INSERT INTO llama_bench (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, load_mode, embeddings, no_op_offload, no_host, fit_target, fit_min_ctx, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('0104b151', '7950', 'CPU', '', 'CPU', '/models/Qwen3.5-35B-A3B-Q4_K_M.gguf', 'qwen35moe 35B.A3B Q4_K - Medium', '21163225088', '34660610048', '2048', '512', '8', '0x0', '0', '50', 'f16', 'f16', '-1', '0', 'layer', '0', '0', '-1', 'auto', '0.00', 'none', 'mmap', '0', '0', '0', '0', '0', '512', '0', '0', '2026-11-28T09:16:41Z', '26861694211', '256631042', '19.062000', '0.183221');
INSERT INTO llama_bench (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, load_mode, embeddings, no_op_offload, no_host, fit_target, fit_min_ctx, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('0104b151', '7950', 'CPU', '', 'CPU', '/models/Qwen3.5-35B-A3B-Q4_K_M.gguf', 'qwen35moe 35B.A3B Q4_K - Medium', '21163225088', '34660610048', '2048', '512', '4', '0xf0', '1', '50', 'f16', 'f16', '-1', '0', 'layer', '0', '0', '-1', 'auto', '0.00', 'none', 'mmap', '0', '0', '0', '0', '0', '0', '128', '0', '2026-11-28T09:19:22Z', '22615604483', '147017671', '5.660000', '0.036742');
INSERT INTO llama_bench (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, load_mode, embeddings, no_op_offload, no_host, fit_target, fit_min_ctx, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('0104b151', '7950', 'CPU', '', 'CPU', '/models/Qwen3.5-35B-A3B-Q4_K_M.gguf', 'qwen35moe 35B.A3B Q4_K - Medium', '21163225088', '34660610048', '2048', '512', '4', '0xf0', '1', '50', 'f16', 'f16', '-1', '0', 'layer', '0', '0', '-1', 'auto', '0.00', 'none', 'mmap', '0', '0', '0', '0', '0', '512', '0', '1024', '2026-11-28T09:23:05Z', '22841087230', '86028855', '22.416000', '0.084439');
INSERT INTO llama_bench (build_commit, build_number, cpu_info, gpu_info, backends, model_filename, model_type, model_size, model_n_params, n_batch, n_ubatch, n_threads, cpu_mask, cpu_strict, poll, type_k, type_v, n_gpu_layers, n_cpu_moe, split_mode, main_gpu, no_kv_offload, flash_attn, devices, tensor_split, tensor_buft_overrides, load_mode, embeddings, no_op_offload, no_host, fit_target, fit_min_ctx, n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts) VALUES ('0104b151', '7950', 'CPU', 'Mali-G610 (Panfrost)', 'Vulkan', '/models/Qwen3.5-35B-A3B-Q4_K_M.gguf', 'qwen35moe 35B.A3B Q4_K - Medium', '21163225088', '34660610048', '2048', '512', '4', '0x0', '0', '50', 'f16', 'f16', '99', '40', 'layer', '0', '0', '-1', 'auto', '0.00', 'none', 'mmap', '0', '0', '0', '0', '0', '512', '0', '0', '2026-11-28T09:31:50Z', '12310977621', '70837932', '41.590000', '0.239270');
