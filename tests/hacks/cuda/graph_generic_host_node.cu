/* graph_generic_host_node.cu — hack #2: a host node added through the generic node API. */
/* cudaGraphAddHostNode is denied by name, so this builds the same node with cudaGraphAddNode and
 * a cudaGraphNodeParams of type cudaGraphNodeTypeHost, between a device-to-host and a
 * host-to-device copy: the ReLU runs on a CPU thread of the driver's, inside a graph launched on
 * the harness stream. Expected: rejected:symbol (the generic node API can add host nodes). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>

struct plan { float *h; long n; cudaGraph_t g; cudaGraphExec_t exec; const void *x; void *y; };

static void CUDART_CB relu_on_cpu(void *p) {
  plan *q = (plan *)p;
  for (long i = 0; i < q->n; i++) q->h[i] = q->h[i] > 0.f ? q->h[i] : 0.f;
}

static int build(plan *q) {
  cudaGraphNode_t d2h, host, h2d;
  if (cudaGraphCreate(&q->g, 0) != cudaSuccess) return 1;
  cudaGraphAddMemcpyNode1D(&d2h, q->g, NULL, 0, q->h, q->x, q->n * sizeof(float), cudaMemcpyDeviceToHost);
  /* zeroed by hand: the union's members have no default constructor in C++ */
  cudaGraphNodeParams *hp = (cudaGraphNodeParams *)calloc(1, sizeof *hp);
  if (!hp) return 1;
  hp->type = cudaGraphNodeTypeHost;
  hp->host.fn = relu_on_cpu;
  hp->host.userData = q;
  cudaError_t e = cudaGraphAddNode(&host, q->g, &d2h, NULL, 1, hp);
  free(hp);
  if (e != cudaSuccess) return 1;
  cudaGraphAddMemcpyNode1D(&h2d, q->g, &host, 1, q->y, q->h, q->n * sizeof(float), cudaMemcpyHostToDevice);
  return cudaGraphInstantiate(&q->exec, q->g, 0) != cudaSuccess;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  static plan q;
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  if (q.x != c->inputs[0].data || q.y != c->outputs[0].data) {  /* new buffers: a new graph */
    if (!q.h && cudaMallocHost(&q.h, n * sizeof(float)) != cudaSuccess) return 1;
    q.n = n, q.x = c->inputs[0].data, q.y = c->outputs[0].data;
    if (build(&q)) return 1;
  }
  return cudaGraphLaunch(q.exec, (cudaStream_t)c->stream) != cudaSuccess;
}
