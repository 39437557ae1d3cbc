// A module worker whose first import, a data: module, opens a WebSocket to the worker's ?ws=
// before this module's own code runs.
import "data:text/javascript,const%20s%20%3D%20new%20WebSocket(new%20URL(self.location.href).searchParams.get('ws'))%3B%20s.onopen%20%3D%20()%20%3D%3E%20postMessage('socket%20open')%3B%20s.onerror%20%3D%20()%20%3D%3E%20postMessage('socket%20error')%3B";
