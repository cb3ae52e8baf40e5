package jvmkit.test.nativestate;

/** A subclass: its objects use the table of Peer, through the inherited field. */
class SubPeer extends Peer {}
