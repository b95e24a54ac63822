/* udp-stream.c - the workload behind traces/samples/udp-4k-1cpu.trace.gz:
 * one sender and one receiver thread streaming N UDP datagrams of SIZE
 * bytes over loopback, the netperf UDP_STREAM pattern without netperf.
 * Not part of the build; see traces/samples/README.md for how it was run:
 *
 *   cc -O2 -pthread -o udp-stream scripts/udp-stream.c
 *   slabsim record -o t.trace.gz -- taskset -c 0 ./udp-stream 20000 4096
 *
 * The threads name themselves udp-send and udp-recv, so their events can
 * be picked out of a machine-wide trace.  The sender never waits for the
 * receiver (as netperf's UDP stream does not): on one CPU, datagrams that
 * find the receive buffer full are dropped and freed in the sender's
 * context, and the receiver reports how many it got. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int n_datagrams, size, rfd;

static void *
receiver (void *arg)
{
  (void) arg;
  pthread_setname_np (pthread_self (), "udp-recv");
  char *buf = malloc ((size_t) size);
  long got = 0;
  for (;;)
    {
      ssize_t r = recv (rfd, buf, (size_t) size, 0);
      if (r < 0 || r == 1)        /* the timeout, or the sender's 1-byte end marker */
        break;
      got++;
    }
  fprintf (stderr, "udp-stream: received %ld of %d datagrams\n", got, n_datagrams);
  free (buf);
  return NULL;
}

int
main (int argc, char **argv)
{
  n_datagrams = argc > 1 ? atoi (argv[1]) : 20000;
  size = argc > 2 ? atoi (argv[2]) : 4096;
  if (n_datagrams < 1 || size < 2)
    {
      fprintf (stderr, "usage: udp-stream [DATAGRAMS [SIZE]]\n");
      return 2;
    }
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  rfd = socket (AF_INET, SOCK_DGRAM, 0);
  if (rfd < 0 || bind (rfd, (struct sockaddr *) &a, sizeof a) < 0
      || getsockname (rfd, (struct sockaddr *) &a, &len) < 0)
    return perror ("udp-stream: receiver socket"), 1;
  /* A lost end marker must not hang the run. */
  struct timeval tv = { 2, 0 };
  setsockopt (rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int sfd = socket (AF_INET, SOCK_DGRAM, 0);
  if (sfd < 0 || connect (sfd, (struct sockaddr *) &a, sizeof a) < 0)
    return perror ("udp-stream: sender socket"), 1;
  pthread_t t;
  if (pthread_create (&t, NULL, receiver, NULL) != 0)
    return perror ("udp-stream: pthread_create"), 1;
  pthread_setname_np (pthread_self (), "udp-send");
  char *buf = calloc (1, (size_t) size);
  for (int i = 0; i < n_datagrams; i++)
    if (send (sfd, buf, (size_t) size, 0) < 0)
      perror ("udp-stream: send");
  send (sfd, buf, 1, 0);
  pthread_join (t, NULL);
  free (buf);
  return 0;
}
