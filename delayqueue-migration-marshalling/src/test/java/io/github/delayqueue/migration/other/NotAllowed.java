package io.github.delayqueue.migration.other;

import java.io.Serializable;

/** A serializable class outside the packages the codec is allowed to instantiate. */
public class NotAllowed implements Serializable {

    private static final long serialVersionUID = 1L;

    public String secret = "x";
}
