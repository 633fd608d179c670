/** A decider: the whole behaviour of one consistency boundary as three plain values. */
export interface Decider<Command, State, Event> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

/** What every command carries from outside the domain: the clock is never read inside a decider. */
export interface CommandMetadata {
  now: string;
}

export const fold = <State, Event>(decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>, events: readonly Event[]): State =>
  events.reduce(decider.evolve, decider.initialState());

