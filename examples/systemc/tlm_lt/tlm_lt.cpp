// A TLM-2.0 loosely-timed initiator and memory target. The initiator writes `n`
// words, then reads them back, with one blocking transport call per word; it waits on
// the delay the target annotated, so simulation time follows the target's latency.
// The target adds `latency` ns per access to the annotated delay and, like an LT
// target with a time quantum, synchronizes (waits the accumulated delay) once the
// delay reaches the quantum. A write to the doorbell register (word 15) notifies the
// target's service process at the annotated time, the LT way: `notify(delay)`.
// argv[1] = words (default 4), argv[2] = latency in ns (default 10), argv[3] =
// quantum in ns (default 25).
#include <systemc.h>
#include <tlm.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <cstdlib>

SC_MODULE(memory) {
  static const unsigned DOORBELL = 15;
  tlm_utils::simple_target_socket<memory> socket;
  unsigned data[16] = {};
  sc_time latency, quantum;
  sc_event doorbell;

  SC_HAS_PROCESS(memory);
  memory(sc_module_name name, int latency_ns, int quantum_ns)
      : sc_module(name), socket("socket"), latency(latency_ns, SC_NS), quantum(quantum_ns, SC_NS) {
    socket.register_b_transport(this, &memory::b_transport);
    SC_THREAD(service);
  }

  void service() {
    wait(doorbell);
    std::printf("doorbell rung at %s\n", sc_time_stamp().to_string().c_str());
  }

  void b_transport(tlm::tlm_generic_payload &trans, sc_time &delay) {
    unsigned index = trans.get_address() / 4;
    if (index >= 16) {
      trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (trans.is_write())
      std::memcpy(&data[index], trans.get_data_ptr(), 4);
    else
      std::memcpy(trans.get_data_ptr(), &data[index], 4);
    delay += latency;
    if (trans.is_write() && index == DOORBELL)
      doorbell.notify(delay); // at the initiator's local time, not now
    if (delay >= quantum) { // synchronize: consume the accumulated delay here
      wait(delay);
      delay = SC_ZERO_TIME;
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

SC_MODULE(cpu) {
  tlm_utils::simple_initiator_socket<cpu> socket;
  int words, errors = 0;

  SC_HAS_PROCESS(cpu);
  cpu(sc_module_name name, int n) : sc_module(name), socket("socket"), words(n) { SC_THREAD(run); }

  void access(tlm::tlm_command command, int index, unsigned &value, sc_time &delay) {
    tlm::tlm_generic_payload trans;
    trans.set_command(command);
    trans.set_address(index * 4);
    trans.set_data_ptr(reinterpret_cast<unsigned char *>(&value));
    trans.set_data_length(4);
    socket->b_transport(trans, delay);
    if (trans.is_response_error())
      errors++;
  }

  void run() {
    sc_time delay = SC_ZERO_TIME;
    for (int i = 0; i < words; i++) {
      unsigned value = 100 + i;
      access(tlm::TLM_WRITE_COMMAND, i, value, delay);
      wait(delay); // honour the annotated delay before the next write
      delay = SC_ZERO_TIME;
      std::printf("write %d done at %s\n", i, sc_time_stamp().to_string().c_str());
    }
    for (int i = 0; i < words; i++) {
      unsigned value = 0;
      access(tlm::TLM_READ_COMMAND, i, value, delay);
      if (value != 100u + i)
        errors++;
    }
    wait(delay); // the reads were decoupled: catch up once at the end
    std::printf("read back %d words at %s, errors %d\n", words, sc_time_stamp().to_string().c_str(), errors);
    unsigned ring = 1;
    delay = SC_ZERO_TIME;
    access(tlm::TLM_WRITE_COMMAND, memory::DOORBELL, ring, delay);
    wait(delay);
    std::printf("doorbell written at %s\n", sc_time_stamp().to_string().c_str());
  }
};

int sc_main(int argc, char *argv[]) {
  int words = argc > 1 ? std::atoi(argv[1]) : 4;
  cpu initiator("initiator", words);
  memory target("target", argc > 2 ? std::atoi(argv[2]) : 10, argc > 3 ? std::atoi(argv[3]) : 25);
  initiator.socket.bind(target.socket);
  sc_start();
  return initiator.errors ? 1 : 0;
}
