package io.github.delayqueue.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;



/** The marks of job-set members, as a settle writes them and a sweep reads them back. */
class SetScriptTest {

    @Test
    void theAcksOfOneSetAreOneMarkInTheOrderOfTheirSetsFirstAcks() {
        List<SetScript.Mark> marks = List.of(new SetScript.Mark('A', "s1", "a"), new SetScript.Mark('A', "s2", "b"), new SetScript.Mark('D', "s1", "c"),
                new SetScript.Mark('A', "s1", "d:e"));
        List<String> entries = SetScript.entriesOf(marks);
        assertThat(entries).containsExactly("As1\u001fa\u001fd:e", "As2\u001fb", "Ds1\u001fc");
        assertThat(SetScript.readMarks(entries.get(0))).containsExactly(new SetScript.Mark('A', "s1", "a"), new SetScript.Mark('A', "s1", "d:e"));
        assertThat(SetScript.readMarks(entries.get(2))).containsExactly(new SetScript.Mark('D', "s1", "c"));
    }

    @Test
    void aValueOfAnotherShapeHoldsNoMark() {
        assertThat(SetScript.readMarks("")).isEmpty();
        assertThat(SetScript.readMarks("Xs\u001fa")).isEmpty();
        assertThat(SetScript.readMarks("As\u001f")).isEmpty();
        assertThat(SetScript.readMarks("A\u001fa")).isEmpty();
        assertThat(SetScript.readMarks("As\u001fa\u001f\u001fb")).isEmpty();
    }
}
