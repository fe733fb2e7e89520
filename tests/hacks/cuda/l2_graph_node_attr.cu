/* l2_graph_node_attr.cu — hack #14: a persisting access-policy window on a graph kernel node. */
/* Captures the ReLU into a CUDA graph and gives its kernel node a persisting access-policy window
 * over the input, the graph-node route around the denied stream attribute.
 * Expected: rejected:symbol (cudaGraphKernelNodeSetAttribute is denied with the other
 * persisting-L2 controls). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = c->inputs[0].shape[0] * c->inputs[0].shape[1];
  cudaStream_t s = (cudaStream_t)c->stream;
  cudaGraph_t g;
  cudaGraphExec_t ge;
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return 1;
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>((const float *)c->inputs[0].data,
                                                     (float *)c->outputs[0].data, n);
  if (cudaStreamEndCapture(s, &g) != cudaSuccess) return 1;
  cudaGraphNode_t node;
  size_t count = 1;
  if (cudaGraphGetNodes(g, &node, &count) != cudaSuccess || count != 1) return 1;
  cudaLaunchAttributeValue v = {};
  v.accessPolicyWindow.base_ptr = c->inputs[0].data;
  v.accessPolicyWindow.num_bytes = (size_t)n * sizeof(float);
  v.accessPolicyWindow.hitRatio = 1.f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeAccessPolicyWindow, &v);
  if (cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) return 1;
  int rc = cudaGraphLaunch(ge, s) != cudaSuccess;
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return rc;
}
